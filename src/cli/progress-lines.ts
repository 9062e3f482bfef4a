import type { PipelineProgress } from '@avatar-pipeline/client/contracts/pipeline-state';

/** One plain line per change, for logs and terminals alike. */
export function describeProgress(p: PipelineProgress): string {
  const parts = [`stage=${p.stage}`];
  if (p.modelId !== undefined) parts.push(`model=${p.modelId}`);
  parts.push(`uploads=${p.uploads.done}/${p.uploads.total}`);
  if (p.training.providerStatus) {
    parts.push(
      `training=${p.training.providerStatus}${p.training.progress === undefined ? '' : `@${p.training.progress}%`}`,
    );
  }
  const styles = p.styles
    .map(
      (s) =>
        `${s.styleId}:${s.stage}${s.progress === undefined || s.stage !== 'polling' ? '' : `@${s.progress}%`}${s.avatarCount === undefined ? '' : `(${s.avatarCount})`}`,
    )
    .join(' ');
  parts.push(`styles=[${styles}]`);
  return parts.join(' ');
}
