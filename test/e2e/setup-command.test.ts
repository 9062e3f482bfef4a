import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { devServerUnderTest, uniqueName } from '../helpers/temporal-env';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');

/** `avatar-pipeline setup` prepares any cluster: namespace and search attributes, as often as it is run. */
describe('avatar-pipeline setup', () => {
  test('registers a missing namespace with the search attributes, and changes nothing the second time', async () => {
    const { address } = devServerUnderTest();
    const namespace = uniqueName('setup');
    const setup = () =>
      run(process.execPath, [path.join(ROOT, 'bin', 'avatar-pipeline.js'), 'setup', '--retention', '48h'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          TEMPORAL_ADDRESS: address,
          TEMPORAL_NAMESPACE: namespace,
        },
        timeout: 90_000,
      });

    const first = await setup();
    expect(first.stderr).toContain(`registering namespace ${namespace}`);
    expect(first.stderr).toContain('ready:');

    const connection = await Connection.connect({ address });
    try {
      const described = await connection.workflowService.describeNamespace({ namespace });
      expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(48 * 3600);
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      expect(customAttributes).toMatchObject({
        SubjectId: 2, // KEYWORD
        CampaignId: 2,
        ModelId: 3, // INT
        PipelineStage: 2,
      });
    } finally {
      await connection.close();
    }

    const second = await setup();
    expect(second.stderr).not.toContain('registering');
    expect(second.stderr).toContain('ready:');
  });

  test('a bad retention is bad input (exit code 2)', async () => {
    const outcome = await run(
      process.execPath,
      [path.join(ROOT, 'bin', 'avatar-pipeline.js'), 'setup', '--retention', 'soon'],
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME } },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('--retention');
  });
});
