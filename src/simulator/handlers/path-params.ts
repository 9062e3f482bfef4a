import { badRequest } from '../simulator-refusal';

/** Path ids are integers (the spec); anything else is the caller's mistake, not a missing order. */
export function integerParam(params: Readonly<Record<string, string>>, name: string): number {
  const raw = params[name] ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(`${name}: must be an integer, got "${raw}"`);
  return Number(raw);
}

/** Page indexes may be negative: that is a page before the first, handled like any other. */
export function pageParam(params: Readonly<Record<string, string>>, name: string): number {
  const raw = params[name] ?? '';
  if (!/^-?\d{1,9}$/.test(raw)) throw badRequest(`${name}: must be an integer, got "${raw}"`);
  return Number(raw);
}
