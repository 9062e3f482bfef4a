import path from 'node:path';
import { bundleInThread } from '../../../src/worker/bundle-in-thread';

describe('bundling the workflow code in a thread', () => {
  test('answers the bundled code of the given workflows', async () => {
    const workflowsPath = path.resolve(__dirname, '../../workflows/smoke-workflows.ts');
    const bundle = await bundleInThread({ workflowsPath });
    expect(bundle.code).toContain('smoke-workflows');
  }, 60_000);

  test('a bundling failure comes back as an error naming it', async () => {
    await expect(bundleInThread({ workflowsPath: '/nonexistent/workflows.js' })).rejects.toThrow(
      /Bundling the workflow code failed/,
    );
  }, 60_000);
});
