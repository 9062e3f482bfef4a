import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { historyFromJson, type History } from '../../src/histories/history-json';
import { pipelineWorkflowBundle } from '../../src/worker/workflow-bundle';
import { pipelineDataConverter } from '../../src/codec/data-converter';
import { REPLAY_ENCRYPTION } from '../../scripts/replay-encryption';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import type { DataConverter } from '@temporalio/common';

/** Recorded by scripts/record-histories.ts (`npm run record:histories`). */
const HISTORY_DIR = path.join(__dirname, '..', 'histories');

/** The main paths, each recorded at least once; how each must have ended. */
const SCENARIOS = {
  'happy-path': 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
  'style-error': 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
  'cancelled-in-training': 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED',
  'cancelled-in-generation': 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED',
} as const;

interface Recorded {
  file: string;
  workflowId: string;
  history: History;
  /** The type of the last event as the file spells it, e.g. EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED. */
  ending: string | undefined;
}

async function loadRecorded(): Promise<Recorded[]> {
  const files = (await readdir(HISTORY_DIR)).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => {
      const json = JSON.parse(await readFile(path.join(HISTORY_DIR, file), 'utf8')) as {
        events?: { eventType?: string }[];
      };
      const history = historyFromJson(json);
      // The workflow id is not part of a history's identity, but child ids derive from it.
      const workflowId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId;
      if (!workflowId) throw new Error(`${file}: no workflow id in its first event`);
      return { file, workflowId, history, ending: json.events?.at(-1)?.eventType };
    }),
  );
}

const isEncrypted = (r: Recorded) => r.file.includes('-encrypted--');

describe('recorded pipeline and campaign histories', () => {
  let recorded: Recorded[];
  beforeAll(async () => {
    recorded = await loadRecorded();
  });

  test('cover the main paths: happy path, a style in ERROR, cancellation in training and in generation', () => {
    for (const [scenario, ending] of Object.entries(SCENARIOS)) {
      const pipelines = recorded.filter((r) => r.file.endsWith(`-${scenario}--pipeline.json`));
      expect({ scenario, recorded: pipelines.length > 0 }).toEqual({ scenario, recorded: true });
      for (const pipeline of pipelines) {
        expect({ file: pipeline.file, ending: pipeline.ending }).toEqual({
          file: pipeline.file,
          ending,
        });
      }
    }
    // The pipeline collects each DONE style's avatars itself: the happy path's history reads pages.
    const happy = recorded.find((r) => r.file.endsWith('-happy-path--pipeline.json'))!;
    const reads = happy.history.events?.filter((e) =>
      ['listFirstAvatarPage', 'listAvatarPage'].includes(
        e.activityTaskScheduledEventAttributes?.activityType?.name ?? '',
      ),
    );
    expect(reads?.length).toBeGreaterThanOrEqual(4);
    // The model claims are replayed too.
    expect(recorded.filter((r) => /--claim-model-\d+\.json$/.test(r.file)).length).toBeGreaterThanOrEqual(1);
  });

  test('cover a campaign with its subjects and their claims', () => {
    const campaigns = recorded.filter((r) => r.file.endsWith('-campaign--campaign.json'));
    expect(campaigns.map((c) => c.ending)).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    const label = campaigns[0]!.file.replace(/-campaign--campaign\.json$/, '');
    const family = recorded.filter((r) => r.file.startsWith(`${label}-campaign--`));
    expect(family.filter((r) => /--replay-c\d\.json$/.test(r.file))).toHaveLength(2);
    expect(family.filter((r) => /--claim-model-\d+\.json$/.test(r.file))).toHaveLength(2);
  });

  test('cover a campaign with review: each run tells the campaign its gate opened, and is approved', () => {
    const campaigns = recorded.filter((r) => r.file.endsWith('-campaign-review--campaign.json'));
    expect(campaigns.length).toBeGreaterThan(0);
    for (const campaign of campaigns) {
      const signals = (campaign.history.events ?? []).flatMap(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? [],
      );
      expect({ file: campaign.file, ending: campaign.ending, signals: signals.sort() }).toEqual({
        file: campaign.file,
        ending: 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
        signals: [
          'campaignSubjectAwaitingReview',
          'campaignSubjectAwaitingReview',
          'campaignSubjectEnded',
          'campaignSubjectEnded',
        ],
      });
    }
    const label = campaigns[0]!.file.replace(/-campaign-review--campaign\.json$/, '');
    const subjects = recorded.filter((r) => r.file.startsWith(`${label}-campaign-review--replay-c`));
    expect(subjects.map((s) => s.ending)).toEqual([
      'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
    ]);
  });

  test('cover a lost create answer: the pipeline reconciles, filters the candidates and claims its own model', () => {
    const pipelines = recorded.filter((r) => r.file.endsWith('-lost-create--pipeline.json'));
    expect(pipelines.length).toBeGreaterThan(0);
    for (const pipeline of pipelines) {
      const events = pipeline.history.events ?? [];
      const activities = events.flatMap(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
      );
      const claims = events.filter(
        (e) =>
          e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name === WORKFLOW_TYPES.claim,
      );
      expect({ file: pipeline.file, ending: pipeline.ending }).toEqual({
        file: pipeline.file,
        ending: 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      });
      expect(activities).toContain('findUnclaimed');
      expect(claims.length).toBeGreaterThanOrEqual(1);
    }
  });

  test('cover training alone, generation under its model and a retry of that generation', () => {
    for (const role of ['model-runs--training', 'model-runs--generation', 'model-runs-retry--retry']) {
      const runs = recorded.filter((r) => r.file.endsWith(`-${role}.json`));
      expect({ role, endings: runs.map((r) => r.ending) }).toEqual({
        role,
        endings: expect.arrayContaining(['EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED']),
      });
    }
  });

  test('cover the quality checks: the face recorded, avatars checked, a failed style ordered again', () => {
    const pipelines = recorded.filter((r) => r.file.endsWith('-quality-checks--pipeline.json'));
    expect(pipelines.length).toBeGreaterThan(0);
    for (const pipeline of pipelines) {
      const activities = (pipeline.history.events ?? []).flatMap(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
      );
      const count = (name: string) => activities.filter((a) => a === name).length;
      expect({
        file: pipeline.file,
        ending: pipeline.ending,
        recordFace: count('recordFace'),
        // Styles 3 and 5, and style 5 again: its first order showed another person.
        createGenerationOrder: count('createGenerationOrder'),
        checkAvatars: count('checkAvatars'),
      }).toEqual({
        file: pipeline.file,
        ending: 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
        recordFace: 1,
        createGenerationOrder: 3,
        checkAvatars: 3,
      });
    }
    // The starter's check of the selfies, before the run existed.
    expect(
      recorded.filter((r) => r.file.endsWith('-quality-checks--selfie-check.json')).length,
    ).toBeGreaterThan(0);
  });

  test('cover the review gate: decisions before the gate, a style ordered again on a reviewer\u2019s word, then approved', () => {
    const pipelines = recorded.filter((r) => r.file.endsWith('-review--pipeline.json'));
    expect(pipelines.length).toBeGreaterThan(0);
    for (const pipeline of pipelines) {
      const events = pipeline.history.events ?? [];
      const activities = events.flatMap(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
      );
      expect({
        file: pipeline.file,
        ending: pipeline.ending,
        // Styles 3 and 5, and style 5 again.
        createGenerationOrder: activities.filter((a) => a === 'createGenerationOrder').length,
        updatesAccepted: events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length,
      }).toEqual({
        file: pipeline.file,
        ending: 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
        createGenerationOrder: 3,
        updatesAccepted: 2,
      });
    }
  });

  test('cover a priced campaign: each subject reserved, the refused one pausing it until resumed, and the tenant\u2019s meter', () => {
    const campaigns = recorded.filter((r) => r.file.endsWith('-campaign-budget--campaign.json'));
    expect(campaigns.length).toBeGreaterThan(0);
    for (const campaign of campaigns) {
      const events = campaign.history.events ?? [];
      const reservations = events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'reserveRunBudget',
      );
      expect({
        file: campaign.file,
        ending: campaign.ending,
        // replay-b1, replay-b2 refused, replay-b2 again after the resume.
        reservations: reservations.length,
        resumed: events.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes),
      }).toEqual({
        file: campaign.file,
        ending: 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
        reservations: 3,
        resumed: true,
      });
    }
    const meters = recorded.filter((r) => r.file.endsWith('-campaign-budget--budget-meter.json'));
    expect(meters.length).toBeGreaterThan(0);
    for (const meter of meters) {
      const events = meter.history.events ?? [];
      const signals = events.filter(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'chargeOrder',
      );
      // Two trainings and four styles, each told once or more (a retry tells again; counted once).
      expect({ file: meter.file, charges: signals.length >= 6 }).toEqual({ file: meter.file, charges: true });
    }
  });

  test('every one replays against the workflow bundle the worker runs', async () => {
    // Encrypted histories replay as an encrypting worker runs them: with the codec and the bundle
    // whose failure converter encodes messages.
    const groups: { histories: Recorded[]; dataConverter?: DataConverter }[] = [
      { histories: recorded.filter((r) => !isEncrypted(r)) },
      { histories: recorded.filter(isEncrypted), dataConverter: pipelineDataConverter(REPLAY_ENCRYPTION)! },
    ];
    const outcomes: { file: string; error: string | undefined }[] = [];
    for (const { histories, dataConverter } of groups) {
      const replays = Worker.runReplayHistories(
        {
          workflowBundle: await pipelineWorkflowBundle({ encodedFailures: dataConverter !== undefined }),
          ...(dataConverter ? { dataConverter } : {}),
          replayName: 'pipeline-replay',
        },
        histories.map(({ history, workflowId }) => ({ history, workflowId })),
      );
      let index = 0;
      for await (const result of replays) {
        outcomes.push({ file: histories[index++]!.file, error: result.error?.message });
      }
    }
    expect(outcomes).toEqual(
      groups.flatMap((g) => g.histories).map(({ file }) => ({ file, error: undefined })),
    );
  });

  test('a change that breaks determinism fails the replay', async () => {
    const happy = recorded.find((r) => r.file.endsWith('-happy-path--pipeline.json'));
    if (!happy) throw new Error('no recorded happy-path pipeline');
    await expect(
      Worker.runReplayHistory(
        { workflowsPath: require.resolve('./fixtures/altered-pipeline'), replayName: 'altered-pipeline' },
        happy.history,
        happy.workflowId,
      ),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
