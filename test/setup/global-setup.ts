import path from 'node:path';
import { Connection } from '@temporalio/client';
import {
  checkFrontend,
  findTemporalCli,
  findTestServer,
  startDevServer,
  waitForFrontend,
} from '../../dev/devserver';
import { prepareNamespace } from '../../src/setup/prepare-namespace';
import { PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS } from '../../src/setup/search-attribute-definitions';
import { TEST_ENV } from '../helpers/test-env-vars';
import { createTestRunDir } from './test-run-dir';
import { saveTestServerState } from './test-server-state';
import { registerNamespacePool } from './namespace-pool';

/**
 * Once per jest run, for the `temporal` project: makes sure both Temporal binaries exist
 * (installing them on a fresh machine) and starts one dev server that all test files share.
 * Test workers are forked after this, so what it puts in process.env reaches every test.
 */
export default async function globalSetup(): Promise<void> {
  const [temporalCli, testServer] = await Promise.all([findTemporalCli(), findTestServer()]);
  process.env[TEST_ENV.temporalCli] = temporalCli;
  process.env[TEST_ENV.testServer] = testServer;

  const runDir = createTestRunDir();
  process.env[TEST_ENV.runDir] = runDir;

  const givenAddress = process.env[TEST_ENV.address];
  if (givenAddress) {
    // A server the developer keeps running (e.g. `npm run temporal:dev`) saves a start per run.
    process.stderr.write(`[temporal] tests use the server at ${givenAddress} (${TEST_ENV.address})\n`);
    const namespace = process.env[TEST_ENV.namespace] || 'default';
    process.env[TEST_ENV.namespace] = namespace;
    const problem = await checkFrontend({ address: givenAddress, namespace });
    if (problem) throw new Error(`${TEST_ENV.address}=${givenAddress} does not answer: ${problem}`);
    // Pipelines start with the package's search attributes: register them there if missing.
    const connection = await Connection.connect({ address: givenAddress });
    try {
      await prepareNamespace(connection, namespace, PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS, (line) =>
        process.stderr.write(`[temporal] ${line}\n`),
      );
    } finally {
      await connection.close();
    }
    await waitForFrontend({
      address: givenAddress,
      namespace,
      searchAttributeNames: Object.keys(PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS),
      timeoutMs: 30_000,
    });
    saveTestServerState({ devServer: undefined, runDir });
    return;
  }

  const devServer = await startDevServer({ dbFile: path.join(runDir, 'temporal.db'), temporalCli });
  process.env[TEST_ENV.address] = devServer.address;
  process.env[TEST_ENV.namespace] = devServer.namespace;
  // A server of the run's own: a namespace per test file (a server the developer keeps running is
  // shared by its files in one namespace, as its namespaces outlive the run).
  const connection = await Connection.connect({ address: devServer.address });
  try {
    process.env[TEST_ENV.namespacePoolSize] = String(await registerNamespacePool(connection));
  } finally {
    await connection.close();
  }
  if (devServer.uiUrl) process.env[TEST_ENV.uiUrl] = devServer.uiUrl;
  saveTestServerState({ devServer, runDir });
}
