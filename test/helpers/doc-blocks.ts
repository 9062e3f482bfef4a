import { readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * The runnable examples of the README and docs/. A shell block (```sh, bash, shell, console) must
 * follow a marker comment, on the last non-blank line before its fence:
 *
 *   <!-- doctest: run exit=0 json=workflowId,links.self contains=DONE -->
 *   <!-- doctest: skip starts a long-running server; the doc test starts its own -->
 *
 * `run` blocks are run with bash, in document order, against a real stack (test/e2e/docs-examples):
 * `exit` is the expected exit code (default 0), each `json` path must be present in some JSON
 * value the block prints on stdout, and `contains` must appear in its output (stdout or stderr;
 * `_` stands for a space). `skip` must give its reason. An unmarked shell block is an error, so no
 * example escapes the test.
 */

export const DOCUMENTED_FILES = [
  'README.md',
  'docs/api.md',
  'docs/cli.md',
  'docs/campaigns.md',
  'docs/review.md',
  'docs/operations.md',
  'docs/security.md',
  'docs/contracts.md',
  'docs/provider-api.md',
  'docs/configuration.md',
  'docs/testing.md',
  'docs/webhooks.md',
  'docs/glossary.md',
];

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console']);

export interface RunnableBlock {
  kind: 'run';
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  script: string;
  exit: number;
  jsonPaths: string[];
  contains: string[];
}

export interface SkippedBlock {
  kind: 'skip';
  file: string;
  line: number;
  reason: string;
}

export type DocBlock = RunnableBlock | SkippedBlock;

const MARKER = /^<!--\s*doctest:\s*(run|skip)\b(.*?)-->\s*$/;

/** Every shell block of one markdown text, with its marker; throws naming the first unmarked or badly marked block. */
export function docBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!fence) continue;
    const [, indent, ticks, language] = fence;
    const end = lines.findIndex((text, j) => j > i && text.trim().startsWith(ticks!));
    if (end < 0) throw new Error(`${file}:${i + 1}: code fence never closed`);
    const body = lines
      .slice(i + 1, end)
      .map((text) => text.slice(indent!.length))
      .join('\n');
    const at = `${file}:${i + 1}`;
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const previous = before >= 0 ? lines[before]!.trim() : '';
    const marker = MARKER.exec(previous);
    if (SHELL_LANGUAGES.has(language!)) {
      if (!marker) {
        throw new Error(
          `${at}: shell block without a marker: put <!-- doctest: run … --> or <!-- doctest: skip <reason> --> before it`,
        );
      }
      blocks.push(parseMarker(at, file, i + 1, marker[1] as 'run' | 'skip', marker[2]!.trim(), body));
    } else if (marker) {
      throw new Error(`${at}: doctest marker before a "${language}" block (only shell blocks run)`);
    }
    i = end;
  }
  return blocks;
}

function parseMarker(
  at: string,
  file: string,
  line: number,
  kind: 'run' | 'skip',
  args: string,
  script: string,
): DocBlock {
  if (kind === 'skip') {
    if (args.length < 10) throw new Error(`${at}: doctest skip needs its reason`);
    return { kind, file, line, reason: args };
  }
  const block: RunnableBlock = { kind, file, line, script, exit: 0, jsonPaths: [], contains: [] };
  for (const option of args.split(/\s+/).filter(Boolean)) {
    // Split at the first "=" only: a contains= text may hold "=" itself (e.g. a query string).
    const eq = option.indexOf('=');
    const key = eq < 0 ? option : option.slice(0, eq);
    const value = eq < 0 ? undefined : option.slice(eq + 1);
    if (value === undefined || value === '')
      throw new Error(`${at}: doctest option "${option}" has no value`);
    if (key === 'exit') block.exit = Number(value);
    else if (key === 'json') block.jsonPaths.push(...value.split(','));
    else if (key === 'contains') block.contains.push(value.replace(/_/g, ' '));
    else throw new Error(`${at}: unknown doctest option "${key}" (exit, json, contains)`);
  }
  return block;
}

/**
 * The blocks of every documented file, read from the package root; DOCTEST_FILES (comma
 * separated) narrows them to some files while writing those.
 */
export function documentedBlocks(root: string): DocBlock[] {
  const only = process.env.DOCTEST_FILES?.split(',');
  return DOCUMENTED_FILES.filter((file) => !only || only.includes(file)).flatMap((file) =>
    docBlocks(file, readFileSync(path.join(root, file), 'utf8')),
  );
}

/** Every JSON value printed one after another (curl answers have no newline between them). */
export function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let start = -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === '{' || c === '[') {
      if (depth === 0) start = i;
      depth++;
    } else if ((c === '}' || c === ']') && depth > 0) {
      depth--;
      if (depth === 0) {
        try {
          values.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          // Not JSON after all (a bracket in plain output): skip it.
        }
      }
    }
  }
  return values;
}

/** Whether `value` has `dotted` (e.g. `links.self`, `generations.0.avatars`), at any value other than undefined. */
export function hasPath(value: unknown, dotted: string): boolean {
  let here: unknown = value;
  for (const key of dotted.split('.')) {
    if (here === null || typeof here !== 'object' || !(key in here)) return false;
    here = (here as Record<string, unknown>)[key];
  }
  return here !== undefined;
}
