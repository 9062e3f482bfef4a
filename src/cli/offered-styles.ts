import { ConfigError } from '../config/config-error';
import { loadConfig, type AppConfig } from '../config/load-config';
import { ProviderClient } from '../provider/client';
import { InvalidInputError } from '../provider/errors';

/** The check is a courtesy before a long run: it must not hold the command up for long. */
const CHECK_TIMEOUT_MS = 5_000;

/**
 * Refuses style ids the provider does not offer before anything starts, so a typo costs an exit
 * code 2 naming --styles instead of a pipeline that fails minutes later. Starting a pipeline needs
 * no provider settings, so without them (or with the provider unreachable) the check is skipped
 * with a note on stderr and the worker's provider has the last word.
 */
export async function checkOfferedStyles(styles: number[], note: (line: string) => void): Promise<void> {
  let provider: AppConfig['provider'];
  try {
    provider = loadConfig().provider;
  } catch (err) {
    if (err instanceof ConfigError) return; // no provider settings here: nothing to check against
    throw err;
  }
  let offered: number[];
  try {
    offered = (await new ProviderClient({ ...provider, timeoutMs: CHECK_TIMEOUT_MS }).listStyles()).map(
      (style) => style.id,
    );
  } catch (err) {
    note(`styles not checked: ${err instanceof Error ? err.message : String(err)}\n`);
    return;
  }
  const unknown = styles.filter((id) => !offered.includes(id));
  if (unknown.length > 0) {
    throw new InvalidInputError(
      '--styles',
      `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not offered by the provider (offered: ${[...offered].sort((a, b) => a - b).join(', ')}; see \`avatar-pipeline styles\`)`,
    );
  }
}
