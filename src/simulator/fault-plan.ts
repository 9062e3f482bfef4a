import { PROVIDER_ENDPOINTS, type EndpointName } from '@avatar-pipeline/client/provider/endpoints';
import type { ResolvedSimulatorOptions } from './options';
import type { SeededRandom } from './seeded-random';

export type ServerErrorBody = 'json' | 'html' | 'empty';

/** What goes wrong with one provider request, decided before it is handled. */
export interface FaultPlan {
  /** Answer 5xx without performing the request. */
  serverError: { status: 500 | 502 | 503; body: ServerErrorBody } | null;
  /** Delay before handling. */
  delayMs: number;
  /** Perform a successful write, then cut the connection without answering. */
  loseResponse: boolean;
  /** Answer a success with a truncated JSON body. */
  malformedJson: boolean;
}

export const NO_FAULTS: FaultPlan = {
  serverError: null,
  delayMs: 0,
  loseResponse: false,
  malformedJson: false,
};

export type FaultOptions = Pick<
  ResolvedSimulatorOptions,
  | 'fail5xxRate'
  | 'htmlErrorShare'
  | 'emptyErrorShare'
  | 'loseResponseRate'
  | 'malformedJsonRate'
  | 'slowRate'
  | 'slowMs'
  | 'faultEndpoints'
>;

function serverErrorBody(random: SeededRandom, options: FaultOptions): ServerErrorBody {
  const draw = random.next();
  if (draw < options.htmlErrorShare) return 'html';
  if (draw < options.htmlErrorShare + options.emptyErrorShare) return 'empty';
  return 'json';
}

/** Draws the faults for one request. Always in the same order, so a seed replays the same pattern. */
export function planFaults(endpoint: EndpointName, random: SeededRandom, options: FaultOptions): FaultPlan {
  if (options.faultEndpoints !== null && !options.faultEndpoints.includes(endpoint)) return NO_FAULTS;
  if (random.chance(options.fail5xxRate)) {
    const status = random.pick([503, 500, 502] as const);
    return { ...NO_FAULTS, serverError: { status, body: serverErrorBody(random, options) } };
  }
  return {
    serverError: null,
    delayMs: random.chance(options.slowRate) ? options.slowMs : 0,
    loseResponse: PROVIDER_ENDPOINTS[endpoint].writes && random.chance(options.loseResponseRate),
    malformedJson: random.chance(options.malformedJsonRate),
  };
}
