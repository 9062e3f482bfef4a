import { Worker as Thread } from 'node:worker_threads';
import type { WorkflowBundle } from '@temporalio/worker';

/** The options of `bundleWorkflowCode` this package uses (plain data, so they can cross to a thread). */
export interface ThreadBundleOptions {
  workflowsPath: string;
  failureConverterPath?: string;
  workflowInterceptorModules?: string[];
}

/*
 * Runs in the thread: the SDK's bundler with a logger that passes only warnings and errors on.
 * Plain JavaScript evaluated as a script, so it runs the same from dist/ and under ts-jest/swc.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { bundleWorkflowCode } = require(workerData.sdk);
const quiet = () => undefined;
const logger = { trace: quiet, debug: quiet, info: quiet, log: quiet,
  warn: (message, meta) => console.warn(message, meta ?? ''),
  error: (message, meta) => console.error(message, meta ?? '') };
bundleWorkflowCode({ ...workerData.options, logger }).then(
  (bundle) => parentPort.postMessage({ code: bundle.code }),
  (err) => parentPort.postMessage({ error: err instanceof Error ? err.stack ?? err.message : String(err) }),
);
`;

/**
 * Bundles the workflow code (webpack, seconds of work) in a worker thread and answers the code.
 * Webpack's working memory, some 70 MB, would otherwise stay in the worker process for its whole
 * life (V8 seldom gives heap pages back); a thread's heap goes away when the thread ends.
 */
export function bundleInThread(options: ThreadBundleOptions): Promise<WorkflowBundle> {
  return new Promise((resolve, reject) => {
    const thread = new Thread(THREAD_SOURCE, {
      eval: true,
      workerData: { sdk: require.resolve('@temporalio/worker'), options },
    });
    thread.once('message', (answer: { code?: string; error?: string }) => {
      void thread.terminate();
      if (answer.code !== undefined) resolve({ code: answer.code });
      else reject(new Error(`Bundling the workflow code failed: ${answer.error ?? 'no reason given'}`));
    });
    thread.once('error', reject);
    thread.once('exit', (code) =>
      reject(new Error(`The bundling thread exited (${code}) without an answer`)),
    );
  });
}
