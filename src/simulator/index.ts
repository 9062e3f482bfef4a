/**
 * The provider simulator: an in-memory implementation of the whole provider REST interface
 * (docs/provider-api.md), speaking either the contract's shapes or the real service's
 * variants, with knobs for timing, outcomes and faults. Used in-process by tests, and by the
 * demo and benchmarks through `avatar-pipeline simulator`.
 */
export { startSimulator, type RunningSimulator, type StartSimulatorOptions } from './simulator-server';
export {
  simulatorOptionsSchema,
  progressionSchema,
  rateLimitSchema,
  parseSimulatorOptions,
  describeOptionIssues,
  type SimulatorOptions,
  type ResolvedSimulatorOptions,
  type Progression,
  type RateLimit,
} from './options';
export { simulatorStatsSchema, orderStatsSchema, type SimulatorStats, type OrderStats } from './stats-schema';
export { endpointNameSchema, type EndpointName } from '@avatar-pipeline/client/provider/endpoints';
export { DEFAULT_STYLES, styleSchema, type StyleEntry, type StyleTreatment } from './style-catalog';
