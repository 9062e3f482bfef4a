import {
  SEARCH_ATTRIBUTE_TYPES,
  type SearchAttributeDefinitions,
} from '../../src/setup/search-attribute-definitions';

export interface DevServerArgsInput {
  dbFile: string;
  ip: string;
  port: number;
  /** Undefined runs the server without the Web UI. */
  uiPort: number | undefined;
  namespace: string;
  searchAttributes?: SearchAttributeDefinitions;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Dynamic config values (`--dynamic-config-value KEY=JSON`); TASK_QUEUE_DYNAMIC_CONFIG by default. */
  dynamicConfig?: Record<string, boolean | number | string>;
}

/**
 * What the package needs from the server, the same keys and values as
 * deploy/temporal/dynamicconfig.yaml (compose and the cluster tier; a unit test keeps them equal,
 * where that file says why each is set): the priority-aware matcher (interactive pipelines,
 * priority 3, are dispatched ahead of campaign work, priority 4), fairness (each tenant's
 * campaign work has its own fairness key with the operator's weight, so a tenant's campaigns are
 * not queued behind another tenant's backlog, however many it runs), one partition per task queue (priority, fairness and the provider rate limit are exact
 * for the whole queue) and worker deployment versioning.
 */
export const TASK_QUEUE_DYNAMIC_CONFIG: Readonly<Record<string, boolean | number>> = {
  'matching.useNewMatcher': true,
  'matching.priorityLevels': 5,
  'matching.enableFairness': true,
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'system.enableDeploymentVersions': true,
  'frontend.workerVersioningWorkflowAPIs': true,
  'system.enableSendTargetVersionChanged': true,
};

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Arguments for `temporal …` that start a dev server as described. */
export function buildDevServerArgs(input: DevServerArgsInput): string[] {
  const args = ['server', 'start-dev', '--db-filename', input.dbFile, '--ip', input.ip];
  args.push('--port', String(input.port));
  if (input.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(input.uiPort));
  // "default" always exists; naming it again is redundant.
  if (input.namespace !== 'default') args.push('--namespace', input.namespace);
  for (const [name, type] of Object.entries(input.searchAttributes ?? {})) {
    if (!IDENTIFIER.test(name)) throw new Error(`Search attribute name "${name}" is not an identifier`);
    if (!SEARCH_ATTRIBUTE_TYPES.includes(type)) {
      throw new Error(`Search attribute ${name}: unknown type "${String(type)}"`);
    }
    args.push('--search-attribute', `${name}=${type}`);
  }
  for (const [key, value] of Object.entries(input.dynamicConfig ?? TASK_QUEUE_DYNAMIC_CONFIG)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  args.push('--log-level', input.logLevel ?? 'warn', '--color', 'never');
  return args;
}
