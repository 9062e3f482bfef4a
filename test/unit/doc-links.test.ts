import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DOCUMENTED_FILES } from '../helpers/doc-blocks';
import { docLinks, headingAnchors, linkProblem } from '../helpers/doc-links';

const ROOT = path.resolve(__dirname, '../..');

describe('relative links of the README and docs/', () => {
  test('every relative link names an existing file, and every anchor a heading of it', () => {
    const problems = DOCUMENTED_FILES.flatMap((file) =>
      docLinks(file, readFileSync(path.join(ROOT, file), 'utf8')).flatMap((link) => {
        const problem = linkProblem(ROOT, link);
        return problem === undefined ? [] : [`${link.file}:${link.line}: ${problem}`];
      }),
    );
    expect(problems).toEqual([]);
  });

  test('the links checked include links into other files and anchors', () => {
    const links = DOCUMENTED_FILES.flatMap((file) =>
      docLinks(file, readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(links.filter((link) => link.target.includes('#')).length).toBeGreaterThan(10);
    expect(links.filter((link) => link.target.startsWith('../')).length).toBeGreaterThan(5);
  });

  test('a missing file, a missing anchor and a link out of the repository are reported', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'doc-links-'));
    try {
      mkdirSync(path.join(root, 'docs'));
      writeFileSync(
        path.join(root, 'docs/a.md'),
        '# A\n\n## The `x` part, twice\n\n## The `x` part, twice\n',
      );
      const problem = (target: string) => linkProblem(root, { file: 'docs/b.md', line: 1, target });
      expect(problem('a.md#the-x-part-twice')).toBeUndefined();
      expect(problem('a.md#the-x-part-twice-1')).toBeUndefined();
      expect(problem('docs/a.md')).toMatch(/no file docs\/docs\/a\.md/);
      expect(problem('a.md#nothing')).toMatch(/no heading with the anchor #nothing/);
      expect(problem('../../outside.md')).toMatch(/leaves the repository/);
      expect(problem('https://example.com/x.md#y')).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('links in code blocks and code spans are not links; headings in code blocks are not headings', () => {
    const text =
      '```md\n[a](nowhere.md)\n# Not\n```\nsee `[b](nowhere.md)` and [c](there.md#x)\n# Real one\n';
    expect(docLinks('f.md', text).map((link) => link.target)).toEqual(['there.md#x']);
    expect([...headingAnchors(text)]).toEqual(['real-one']);
  });
});
