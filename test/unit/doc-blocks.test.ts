import { docBlocks, hasPath, jsonValues } from '../helpers/doc-blocks';

describe('doc blocks (the markers of docs as tests)', () => {
  test('an unmarked shell block is refused, naming its line', () => {
    expect(() => docBlocks('x.md', 'text\n\n```sh\nls\n```\n')).toThrow(
      /x\.md:3: shell block without a marker/,
    );
  });

  test('run and skip markers, with blank lines before the fence; other languages need none', () => {
    const text = [
      '<!-- doctest: run exit=2 json=a.b,c contains=no_such -->',
      '',
      '```sh',
      'false',
      '```',
      '```json',
      '{}',
      '```',
      '<!-- doctest: skip needs a container engine -->',
      '```bash',
      'docker-compose up',
      '```',
    ].join('\n');
    expect(docBlocks('y.md', text)).toEqual([
      {
        kind: 'run',
        file: 'y.md',
        line: 3,
        script: 'false',
        exit: 2,
        jsonPaths: ['a.b', 'c'],
        contains: ['no such'],
      },
      { kind: 'skip', file: 'y.md', line: 10, reason: 'needs a container engine' },
    ]);
  });

  test('a contains= text keeps every "=" after the first', () => {
    const [block] = docBlocks('q.md', '<!-- doctest: run contains=state=done&page=2 -->\n```sh\nls\n```');
    expect(block).toMatchObject({ kind: 'run', contains: ['state=done&page=2'] });
  });

  test('a skip without its reason, or an unknown option, is refused', () => {
    expect(() => docBlocks('z.md', '<!-- doctest: skip -->\n```sh\nls\n```')).toThrow(/needs its reason/);
    expect(() => docBlocks('z.md', '<!-- doctest: run code=1 -->\n```sh\nls\n```')).toThrow(
      /unknown doctest option/,
    );
  });

  test('JSON values printed back to back are each found, and paths are looked up in them', () => {
    const values = jsonValues('{"a":{"b":1}}{"c":"}{"}\nplain [text]');
    expect(values).toEqual([{ a: { b: 1 } }, { c: '}{' }]);
    expect(hasPath(values[0], 'a.b')).toBe(true);
    expect(hasPath(values[0], 'a.c')).toBe(false);
  });
});
