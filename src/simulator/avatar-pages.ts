import type { ResolvedSimulatorOptions } from './options';
import { notFound } from './simulator-refusal';

type PagingOptions = Pick<ResolvedSimulatorOptions, 'firstPage' | 'pageSize' | 'pageBeforeFirst'>;

/** One page of a list; pages past the end are empty, a page before the first is empty or 404 as configured. */
export function pageOf<T>(items: readonly T[], page: number, options: PagingOptions): T[] {
  if (page < options.firstPage) {
    if (options.pageBeforeFirst === 'error') {
      throw notFound(`page ${page} does not exist: pages start at ${options.firstPage}`);
    }
    return [];
  }
  const start = (page - options.firstPage) * options.pageSize;
  return items.slice(start, start + options.pageSize);
}
