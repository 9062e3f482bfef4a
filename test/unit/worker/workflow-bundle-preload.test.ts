import { bundleWorkflowCode } from '@temporalio/worker';
import { WARNINGS_ONLY, workflowBundleOptions } from '../../../src/worker/workflow-bundle';

/**
 * The worker's V8 context evaluates the workflow modules once and shares them with every run
 * (docs/operations.md, "Worker memory"): the bundle's preload hook requires the workflows' entry,
 * so a run's start, and every replay of an evicted run, skips evaluating them again.
 */
describe('the workflow bundle', () => {
  it('preloads the workflow modules into the shared context', async () => {
    const { code } = await bundleWorkflowCode(
      workflowBundleOptions({ encodedFailures: false, tracing: false }, WARNINGS_ONLY),
    );
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([\s\S]*?)\n\}/.exec(code)?.[1];
    expect(preload).toBeDefined();
    expect(preload).toMatch(/__webpack_require__\([^)]*workflows\/index\.[jt]s"\)/);
  }, 120_000);
});
