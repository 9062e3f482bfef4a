import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTestServer } from '../../dev/devserver';
import { Connection } from '@temporalio/client';
import { addSearchAttributes, prepareNamespace } from '../../src/setup/prepare-namespace';
import { PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS } from '../../src/setup/search-attribute-definitions';
import { TEST_ENV } from './test-env-vars';

/**
 * A fresh time-skipping test server (its own process; tear it down in afterAll). Time skips
 * globally per environment, so do not share one between concurrently running workflows.
 * It has the pipeline's search attributes, like every server the package starts.
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const path = process.env[TEST_ENV.testServer] ?? (await findTestServer());
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path } },
  });
  try {
    await addSearchAttributes(env.connection, 'default', PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS);
  } catch (err) {
    await env.teardown();
    throw err;
  }
  return env;
}

/** An environment on the run's shared dev server (teardown only closes the connections). */
export async function createDevServerEnv(): Promise<TestWorkflowEnvironment> {
  const { address, namespace } = devServerUnderTest();
  return TestWorkflowEnvironment.createFromExistingServer({ address, namespace });
}

/** The run's dev server, for tests that connect on their own (CLI, API, worker processes). */
export function devServerUnderTest(): { address: string; namespace: string; uiUrl: string | undefined } {
  const address = process.env[TEST_ENV.address];
  if (!address) {
    throw new Error(
      `${TEST_ENV.address} is not set: run this test in jest's "temporal" project, whose global setup starts the server`,
    );
  }
  return {
    address,
    namespace: process.env[TEST_ENV.namespace] ?? 'default',
    uiUrl: process.env[TEST_ENV.uiUrl],
  };
}

/**
 * A fresh directory inside this run's directory, for files a test needs (extra databases,
 * logs): removed with the run, or by the next run if this one was killed.
 */
export async function makeScratchDir(prefix: string): Promise<string> {
  const runDir = process.env[TEST_ENV.runDir];
  if (!runDir) throw new Error(`${TEST_ENV.runDir} is not set: run this test in jest's "temporal" project`);
  return mkdtemp(path.join(runDir, `${prefix}-`));
}

/** Task queues (and workflow ids) unique per test, so tests sharing a server never steal each other's tasks. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * Moves the rest of a test file onto its own namespace of the run's dev server (registered with
 * the pipeline's search attributes): for tests whose workflows others must not list, such as
 * encrypted ones, which a client without the keys cannot decode. Call in beforeAll; the returned
 * function (for afterAll) restores the shared namespace, as jest runs files one after another.
 */
export async function useOwnNamespace(namespace: string): Promise<() => void> {
  const { address } = devServerUnderTest();
  const previous = process.env[TEST_ENV.namespace];
  const connection = await Connection.connect({ address });
  try {
    await prepareNamespace(connection, namespace, PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS, () => undefined);
  } finally {
    await connection.close();
  }
  process.env[TEST_ENV.namespace] = namespace;
  return () => {
    if (previous === undefined) delete process.env[TEST_ENV.namespace];
    else process.env[TEST_ENV.namespace] = previous;
  };
}
