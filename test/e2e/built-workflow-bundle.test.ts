import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type * as WorkflowBundleModule from '../../src/worker/workflow-bundle';

const DIST = path.join(__dirname, '..', '..', 'dist');

/**
 * The compiled worker (dist/, what `avatar-pipeline worker` runs; `npm test` builds it first) loads
 * the workflow bundles `npm run build` wrote, one per variant, instead of bundling at start.
 */
describe('the workflow bundles built by npm run build', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const compiled = require(
    path.join(DIST, 'src', 'worker', 'workflow-bundle.js'),
  ) as typeof WorkflowBundleModule;

  it.each(compiled.WORKFLOW_BUNDLE_VARIANTS.map((variant) => [JSON.stringify(variant), variant] as const))(
    'are what the compiled worker loads, by path (%s)',
    async (_name, variant) => {
      const bundle = await compiled.pipelineWorkflowBundle(variant);
      const codePath = path.join(
        DIST,
        'workflow-bundles',
        path.basename(compiled.workflowBundleFile(variant)),
      );
      expect(bundle).toEqual({ codePath });
      expect(existsSync(codePath) && statSync(codePath).size).toBeGreaterThan(100_000);
    },
  );
});
