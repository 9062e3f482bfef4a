/**
 * The second half of `npm run build`: bundles the compiled workflow code (dist/workflows) with
 * the SDK's `bundleWorkflowCode`, one file per variant, into dist/workflow-bundles, where the
 * worker loads it from (src/worker/workflow-bundle.ts). Webpack's seconds of work and its memory
 * are spent here, not at every worker start.
 *
 *   node dist/scripts/build-workflow-bundles.js
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  WARNINGS_ONLY,
  WORKFLOW_BUNDLE_DIR,
  WORKFLOW_BUNDLE_VARIANTS,
  workflowBundleFile,
  workflowBundleOptions,
} from '../src/worker/workflow-bundle';

async function main(): Promise<void> {
  mkdirSync(WORKFLOW_BUNDLE_DIR, { recursive: true });
  for (const variant of WORKFLOW_BUNDLE_VARIANTS) {
    const { code } = await bundleWorkflowCode(workflowBundleOptions(variant, WARNINGS_ONLY));
    const file = workflowBundleFile(variant);
    writeFileSync(file, code);
    console.error(
      `workflow bundle: ${path.relative(process.cwd(), file)} (${(code.length / 1e6).toFixed(1)} MB)`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
