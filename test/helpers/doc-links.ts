import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/*
 * The relative links of the README and docs/ (`[text](target)` outside code), each of which must
 * name an existing file or folder, and, with `#anchor` into a markdown file, one of its headings
 * (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered).
 */

export interface DocLink {
  file: string;
  /** 1-based. */
  line: number;
  target: string;
}

/** Every inline link of a markdown text outside fenced blocks and code spans. */
export function docLinks(file: string, markdown: string): DocLink[] {
  const links: DocLink[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length)
        fence = undefined;
      return;
    }
    if (opening !== undefined) {
      fence = opening;
      return;
    }
    const prose = text.replace(/(`+)[^`]*?\1/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links.push({ file, line: index + 1, target: match[1]! });
    }
  });
  return links;
}

/** The anchors GitHub gives a markdown text's headings. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const text of markdown.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length)
        fence = undefined;
      continue;
    }
    if (opening !== undefined) {
      fence = opening;
      continue;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats === 0 ? slug : `${slug}-${repeats}`);
  }
  return anchors;
}

/** Why a relative link does not resolve, or undefined when it does (or is not relative). */
export function linkProblem(root: string, link: DocLink): string | undefined {
  const { target } = link;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart = '', anchor] = target.split('#', 2);
  const from = path.join(root, link.file);
  const resolved = pathPart === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(pathPart));
  if (!resolved.startsWith(root + path.sep) && resolved !== root) return `${target} leaves the repository`;
  if (!existsSync(resolved)) return `${target}: no file ${path.relative(root, resolved)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return undefined;
  const anchors = headingAnchors(readFileSync(resolved, 'utf8'));
  return anchors.has(anchor)
    ? undefined
    : `${target}: ${path.relative(root, resolved)} has no heading with the anchor #${anchor}`;
}
