import type { z } from 'zod';
import type { linksSchema } from './response-schemas';

export type PipelineLinks = z.infer<typeof linksSchema>;

/** Where a pipeline can be read and cancelled, and seen in the Temporal Web UI when its URL is configured. */
export function pipelineLinks(
  workflowId: string,
  temporal: { namespace: string; uiUrl?: string },
): PipelineLinks {
  const self = `/v1/pipelines/${encodeURIComponent(workflowId)}`;
  return {
    self,
    cancel: `${self}/cancel`,
    ...(temporal.uiUrl
      ? {
          temporalUi: `${temporal.uiUrl}/namespaces/${encodeURIComponent(temporal.namespace)}/workflows/${encodeURIComponent(workflowId)}`,
        }
      : {}),
  };
}
