import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { historyFromJson } from '../../src/histories/history-json';
import { pipelineWorkflowBundle } from '../../src/worker/create-worker';

/**
 * A pipeline watched the way watchers once followed progress: through the progressChanges update,
 * accepted 18 times and written to its history (recorded with the code before the feed became
 * query-only). A run like it, open when the workers are upgraded, must still replay: this test
 * holds the retired update handler (workflows/progress-log.ts) in place until both are deleted.
 */
const WATCHED = path.join(__dirname, 'fixtures', 'watched-through-update--pipeline.json');

test('a run whose history holds accepted progressChanges updates replays on the current bundle', async () => {
  const history = historyFromJson(JSON.parse(await readFile(WATCHED, 'utf8')));
  const accepted = history.events?.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes) ?? [];
  expect(accepted.length).toBeGreaterThan(0);
  const workflowId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId;
  if (!workflowId) throw new Error(`${WATCHED}: no workflow id in its first event`);
  await Worker.runReplayHistory(
    {
      workflowBundle: await pipelineWorkflowBundle({ encodedFailures: false }),
      replayName: 'watched-through-update',
    },
    history,
    workflowId,
  );
});
