import { z } from 'zod';
import { orderStatusSchema } from './state-schema';

const counter = z.number().int().nonnegative();

export const orderStatsSchema = z.object({
  id: z.number().int(),
  parent: z.number().int(),
  kind: z.enum(['model', 'generation']),
  styles: z.array(z.number().int()),
  gender: z.number().int(),
  status: orderStatusSchema,
  /** Successful uploads (training images stored). */
  uploads: counter,
  /** Runs accepted. More than 1 never happens; a client that retried blindly shows up in runAttempts. */
  runs: counter,
  /** Run calls for this order, accepted or refused. */
  runAttempts: counter,
  selects: counter,
  statusCalls: counter,
});
export type OrderStats = z.infer<typeof orderStatsSchema>;

/** The JSON of GET {basePath}/__sim/stats; exported so out-of-process tests can parse it. */
export const simulatorStatsSchema = z.object({
  requests: z.object({
    /** Provider requests received (never /__sim ones), including refused and faulted ones. */
    total: counter,
    /** By endpoint name (the client's method names), plus "unknown" for paths that match none. */
    byEndpoint: z.record(z.string(), counter),
    /** By HTTP status actually sent; lost responses appear under faults only. */
    byStatus: z.record(z.string(), counter),
  }),
  rateLimited: counter,
  /** With rateLimit.sharedRps: the other client of the key, its requests and how many were refused (429). */
  sharedClient: z.object({ requests: counter, rateLimited: counter }).optional(),
  faults: z.object({
    serverErrors: counter,
    lostResponses: counter,
    malformedJson: counter,
    slowResponses: counter,
  }),
  totals: z.object({
    modelsCreated: counter,
    generationOrdersCreated: counter,
    uploads: counter,
    runs: counter,
    runAttempts: counter,
    selects: counter,
    statusCalls: counter,
  }),
  orders: z.array(orderStatsSchema),
});
export type SimulatorStats = z.infer<typeof simulatorStatsSchema>;
