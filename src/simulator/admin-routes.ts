import { json, type AdminRoute } from './admin-context';
import { InvalidSimulatorOptionsError, type SimulatorOptions } from './options';

function optionsPatch(body: unknown): SimulatorOptions | null {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as SimulatorOptions)
    : null;
}

/** Test and demo controls; not part of the provider's interface, so no auth and no faults. */
export const ADMIN_ROUTES: readonly AdminRoute[] = [
  { method: 'GET', template: '/health', handler: () => json({ status: 'ok' }) },
  { method: 'GET', template: '/stats', handler: ({ runtime }) => json(runtime.stats()) },
  { method: 'GET', template: '/options', handler: ({ runtime }) => json(runtime.options) },
  {
    method: 'POST',
    template: '/options',
    handler: ({ runtime, body }) => {
      const patch = optionsPatch(body);
      if (patch === null) return json({ error: 'body must be a JSON object of options to change' }, 400);
      try {
        return json(runtime.setOptions(patch));
      } catch (err) {
        if (!(err instanceof InvalidSimulatorOptionsError)) throw err;
        return json({ error: err.message, issues: err.issues }, 400);
      }
    },
  },
  {
    method: 'POST',
    template: '/reset',
    handler: ({ runtime }) => {
      runtime.reset();
      return json({ status: 'ok' });
    },
  },
];
