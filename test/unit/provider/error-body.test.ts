import { extractErrorMessage, MAX_EXAMINED_LENGTH } from '@avatar-pipeline/client/provider/error-body';

describe('extractErrorMessage', () => {
  it.each([
    ['{"status":"error","message":"Order not found"}', 'Order not found'],
    ['{"error":{"message":"gender must be 1 or 2"}}', 'gender must be 1 or 2'],
    ['<html><head><TITLE lang="en">502 Bad Gateway</TITLE></head><body>x</body></html>', '502 Bad Gateway'],
    ['<html><body><h1>Service</h1> <p>down</p></body></html>', 'Service down'],
    ['a <> b', 'a <> b'],
    ['plain words', 'plain words'],
    ['', undefined],
  ])('summarises %j', (body, expected) => {
    expect(extractErrorMessage(body)).toBe(expected);
  });

  it('looks only at the first MAX_EXAMINED_LENGTH characters of a body that is not JSON', () => {
    const body = `${'a'.repeat(MAX_EXAMINED_LENGTH)}<title>Late title</title>`;
    expect(extractErrorMessage(body)).toBe(`${'a'.repeat(300)}…`);
  });

  // Shapes that make a backtracking /<[^>]+>/ or /<title[^>]*>([^<]*)<\/title>/ quadratic; 1.6 MB
  // of them would block the event loop for hours. Only the examined head is scanned, in one pass.
  it.each([
    ['"<" repeated', '<'.repeat(1_600_000), `${'<'.repeat(300)}…`],
    ['"<title" repeated', '<title'.repeat(270_000), `${'<title'.repeat(50)}…`],
    ['a title never closed', `<title>${'<'.repeat(1_600_000)}`, `${'<'.repeat(300)}…`],
    ['"<a" repeated', '<a'.repeat(800_000), `${'<a'.repeat(150)}…`],
    // The head ends inside a tag: 16,384 = 2,340 × 7 + 4, and an unclosed "<tit" is text.
    ['"<title>" repeated', '<title>'.repeat(230_000), '<tit'],
  ])('summarises 1.6 MB of %s from its head', (_shape, body, expected) => {
    expect(extractErrorMessage(body)).toBe(expected);
  });

  it('finds titles and strips tags as the regular expressions they replace would', () => {
    const reference = (text: string) => {
      const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
      const plain = (title ?? text.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
      return plain.length > 0 ? plain : undefined;
    };
    const pieces = ['<', '>', '<title', '</title>', '<TITLE>', 'a', ' ', '/', 'x>'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };
    for (let round = 0; round < 5_000; round++) {
      let body = 'x';
      const length = next() % 12;
      for (let i = 0; i < length; i++) body += pieces[next() % pieces.length];
      expect([body, extractErrorMessage(body)]).toEqual([body, reference(body)]);
    }
  });
});
