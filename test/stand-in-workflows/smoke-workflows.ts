import { proxyActivities, sleep } from '@temporalio/workflow';

export interface SmokeActivities {
  greet(name: string): Promise<string>;
}

export interface SmokeResult {
  greeting: string;
  /** Workflow time that passed during the sleep: with time skipping, far more than wall time. */
  sleptMs: number;
}

const { greet } = proxyActivities<SmokeActivities>({ startToCloseTimeout: '10 seconds' });

/** A durable timer followed by an activity: the smallest workflow that exercises both. */
export async function smokeWorkflow(name: string, sleepMs: number): Promise<SmokeResult> {
  const before = Date.now();
  await sleep(sleepMs);
  const sleptMs = Date.now() - before;
  return { greeting: await greet(name), sleptMs };
}
