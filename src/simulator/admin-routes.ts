import { json, type AdminRoute } from './admin-context';
import { FIXED_AT_START, type ResolvedSimulatorOptions, type SimulatorOptions } from './options';
import { InputError } from '@avatar-pipeline/client/errors';

/** The options as GET /options shows them: credentials left out. */
function shownOptions(options: ResolvedSimulatorOptions) {
  const { apiKey: _key, adminToken: _token, ...shown } = options;
  return shown;
}

function optionsPatch(body: unknown): SimulatorOptions | null {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as SimulatorOptions)
    : null;
}

/**
 * Test and demo controls; not part of the provider's interface, so no provider key and no faults.
 * All but /health are guarded (see admin-request.ts); the state file and the admin token are fixed
 * at start, so no request can make the simulator write or delete files elsewhere.
 */
export const ADMIN_ROUTES: readonly AdminRoute[] = [
  { method: 'GET', template: '/health', handler: () => json({ status: 'ok' }) },
  { method: 'GET', template: '/stats', guarded: true, handler: ({ runtime }) => json(runtime.stats()) },
  {
    method: 'GET',
    template: '/options',
    guarded: true,
    handler: ({ runtime }) => json(shownOptions(runtime.options)),
  },
  {
    method: 'POST',
    template: '/options',
    guarded: true,
    handler: ({ runtime, body }) => {
      const patch = optionsPatch(body);
      if (patch === null) return json({ error: 'body must be a JSON object of options to change' }, 400);
      const fixed = FIXED_AT_START.filter((name) => Object.hasOwn(patch, name));
      if (fixed.length > 0)
        return json(
          {
            error: `${fixed.join(', ')}: fixed when the simulator starts; not changeable here`,
            issues: fixed.map((name) => ({ path: name, message: 'is fixed when the simulator starts' })),
          },
          400,
        );
      try {
        return json(shownOptions(runtime.setOptions(patch)));
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        return json({ error: err.message, issues: err.issues }, 400);
      }
    },
  },
  {
    method: 'POST',
    template: '/reset',
    guarded: true,
    handler: ({ runtime }) => {
      runtime.reset();
      return json({ status: 'ok' });
    },
  },
];
