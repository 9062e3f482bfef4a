import type { SimulatorRuntime } from './simulator-runtime';

export type AdminResult =
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'bytes'; status: number; contentType: string; body: Buffer };

export interface AdminContext {
  runtime: SimulatorRuntime;
  params: Readonly<Record<string, string>>;
  body: unknown;
}

export interface AdminRoute {
  method: 'GET' | 'POST';
  /** Path below `/__sim`. */
  template: string;
  handler: (context: AdminContext) => AdminResult;
  /** Controls and counters: only for a caller with the admin token (or, without one, on loopback). */
  guarded?: boolean;
}

export const json = (body: unknown, status = 200): AdminResult => ({ kind: 'json', status, body });
export const missing = (message: string): AdminResult => json({ error: message }, 404);
export const png = (body: Buffer): AdminResult => ({
  kind: 'bytes',
  status: 200,
  contentType: 'image/png',
  body,
});
