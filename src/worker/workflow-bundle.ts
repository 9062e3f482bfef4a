import {
  bundleWorkflowCode,
  type BundleOptions,
  type Logger,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ENCODED_FAILURE_CONVERTER_PATH } from '../codec/data-converter';
import { TRACING_WORKFLOW_INTERCEPTORS } from '../tracing/workflow-interceptors';

/**
 * Which workflow bundle a worker needs. With payload encryption the sandbox gets the failure
 * converter that encodes failure messages too; with tracing, the OpenTelemetry workflow
 * interceptors. Both are baked into a bundle, so there is one bundle per combination.
 */
export interface WorkflowBundleVariant {
  encodedFailures: boolean;
  tracing: boolean;
}

export const WORKFLOW_BUNDLE_VARIANTS: readonly WorkflowBundleVariant[] = [
  { encodedFailures: false, tracing: false },
  { encodedFailures: true, tracing: false },
  { encodedFailures: false, tracing: true },
  { encodedFailures: true, tracing: true },
];

/**
 * Where `npm run build` writes the bundles (scripts/build-workflow-bundles.ts): `dist/workflow-bundles`,
 * beside the compiled `dist/src`. Seen from the TypeScript source (jest) this folder does not exist.
 */
export const WORKFLOW_BUNDLE_DIR = path.resolve(__dirname, '../../workflow-bundles');

const WORKFLOWS_PATH = require.resolve('../../workflows');

export function workflowBundleFile(variant: WorkflowBundleVariant, dir = WORKFLOW_BUNDLE_DIR): string {
  const name = ['workflows', variant.encodedFailures && 'encoded-failures', variant.tracing && 'tracing']
    .filter(Boolean)
    .join('.');
  return path.join(dir, `${name}.js`);
}

/**
 * The workflow modules are evaluated once per worker thread, when its V8 context is made, and
 * shared (frozen) by every run on it, instead of once per run at its start and at every replay of
 * a run the sticky cache evicted: less heap per cached run and less CPU per replay
 * (docs/operations.md, "Worker memory"). Sharing needs modules that keep no state of their own at
 * module level (constants, definitions and activity proxies only); a run's state lives in its
 * workflow function's scope. The OpenTelemetry interceptors (tracing) keep theirs per run.
 */
const PRELOADED_MODULES = [WORKFLOWS_PATH];

export function workflowBundleOptions(variant: WorkflowBundleVariant, logger?: Logger): BundleOptions {
  return {
    workflowsPath: WORKFLOWS_PATH,
    preloadModules: PRELOADED_MODULES,
    ...(variant.encodedFailures ? { failureConverterPath: ENCODED_FAILURE_CONVERTER_PATH } : {}),
    ...(variant.tracing ? { workflowInterceptorModules: [TRACING_WORKFLOW_INTERCEPTORS] } : {}),
    ...(logger ? { logger } : {}),
  };
}

const bundledHere = new Map<string, Promise<WorkflowBundleOption>>();

/**
 * The workflow bundle for a worker: the file `npm run build` wrote, when there is one; otherwise
 * (code run from its TypeScript source, as in the tests) the workflows bundled here, once per
 * process and variant.
 */
export function pipelineWorkflowBundle(
  options: { encodedFailures?: boolean; tracing?: boolean } = {},
): Promise<WorkflowBundleOption> {
  const variant = { encodedFailures: options.encodedFailures === true, tracing: options.tracing === true };
  const codePath = workflowBundleFile(variant);
  if (existsSync(codePath)) return Promise.resolve({ codePath });
  let bundle = bundledHere.get(codePath);
  if (!bundle) {
    bundle = bundleWorkflowCode(workflowBundleOptions(variant, WARNINGS_ONLY));
    bundledHere.set(codePath, bundle);
  }
  return bundle;
}

const quiet = (): void => undefined;
/** Webpack's progress is noise in a test run; its warnings and errors are not. */
export const WARNINGS_ONLY: Logger = {
  trace: quiet,
  debug: quiet,
  info: quiet,
  log: quiet,
  warn: (message, meta) => console.warn(message, meta ?? ''),
  error: (message, meta) => console.error(message, meta ?? ''),
};
