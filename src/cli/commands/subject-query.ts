import type { Command } from 'commander';
import { subjectSearchQuery } from '@avatar-pipeline/client/codec/subject-token';
import { loadConfig } from '../../config/load-config';
import { reportError } from '../fail';

export function registerSubjectQueryCommand(program: Command): void {
  program
    .command('subject-query')
    .description(
      "Print the visibility query that finds a subject's pipelines (with payload encryption, SubjectId holds a keyed hash, one per key)",
    )
    .argument('<subjectId>', 'the subject id as the starter gave it')
    .addHelpText(
      'after',
      '\nPaste the output into the Temporal UI\'s search, or: temporal workflow list --query "$(avatar-pipeline subject-query u1)"',
    )
    .action((subjectId: string) => {
      try {
        const { temporal } = loadConfig();
        process.stdout.write(`${subjectSearchQuery(temporal.encryption, subjectId)}\n`);
      } catch (err) {
        reportError(err);
      }
    });
}
