import { ManifestError } from '../campaign/manifest/manifest-issue';
import { EXIT } from './exit-codes';
import { reportError } from './fail';
import { writeLines } from './printable';

/** Like reportError, with a refused manifest as bad input (exit 2). */
export function reportCampaignError(err: unknown): void {
  if (err instanceof ManifestError) {
    writeLines(process.stderr, `avatar-pipeline: ${err.message}`);
    process.exitCode = EXIT.badInput;
    return;
  }
  reportError(err);
}
