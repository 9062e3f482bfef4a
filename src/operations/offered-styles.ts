import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { loadConfig } from '../config/load-config';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { Style } from '@avatar-pipeline/client/provider/schemas';

/** The list changes rarely; asking once in a while keeps start requests off the provider's quota. */
const KNOWN_FOR_MS = 5 * 60_000;
/** After a failed ask, starts go unchecked for a while instead of each waiting for the provider. */
const UNKNOWN_FOR_MS = 30_000;
/** A start must not hang on a slow provider: the check is a courtesy, the worker has the last word. */
const ASK_TIMEOUT_MS = 5_000;

/**
 * The provider's style ids for one command that starts work (the CLI's run and campaign), so unknown
 * ids are refused before anything starts. Starting needs no provider settings, so without them the
 * check is skipped; with the provider unreachable it is skipped with a note. Undefined: unchecked.
 */
export async function askOfferedStyles(note: (line: string) => void): Promise<number[] | undefined> {
  let provider;
  try {
    provider = loadConfig().provider;
  } catch (err) {
    if (err instanceof ConfigError) return undefined;
    throw err;
  }
  try {
    const styles = await new ProviderClient({ ...provider, timeoutMs: ASK_TIMEOUT_MS }).listStyles();
    return styles.map((style) => style.id);
  } catch (err) {
    note(`styles not checked: ${err instanceof Error ? err.message : String(err)}\n`);
    return undefined;
  }
}

/**
 * The provider's styles for a long-running server (the API), cached: the ids check start requests,
 * the names label a run's styles in its status answer. Undefined while the provider cannot be asked
 * (then unknown ids are left for the pipeline to refuse, and styles go unnamed).
 */
export function offeredStylesCache(
  provider: Pick<ProviderClient, 'listStyles'>,
  now: () => number = Date.now,
): () => Promise<Style[] | undefined> {
  let cached: { styles: Style[] | undefined; until: number } | undefined;
  let asking: Promise<Style[] | undefined> | undefined;
  return () => {
    if (cached && now() < cached.until) return Promise.resolve(cached.styles);
    asking ??= provider
      .listStyles({ timeoutMs: ASK_TIMEOUT_MS })
      .then(
        (styles) => {
          cached = { styles, until: now() + KNOWN_FOR_MS };
          return styles;
        },
        () => {
          cached = { styles: undefined, until: now() + UNKNOWN_FOR_MS };
          return undefined;
        },
      )
      .finally(() => (asking = undefined));
    return asking;
  };
}
