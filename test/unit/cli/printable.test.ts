import { PassThrough } from 'node:stream';
import { printable, printableJson, printableLines, writeLines } from '../../../src/cli/printable';

/** Provider and run text printed by the CLI cannot drive the terminal. */
const HOSTILE = 'Neon\u001b[2J\u001b[H\u009b31m\u007f\u0085\u2028\u202e\u{e0001}end';

/** Nothing a terminal acts on: printable ASCII, newlines and ordinary non-control characters only. */
const inert = (text: string) => !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(text.replace(/\n/g, ''));

describe('printable text for people', () => {
  it('escapes C0, ESC sequences, DEL, C1, separators and format characters', () => {
    expect(printable(HOSTILE)).toBe(
      'Neon\\u{1b}[2J\\u{1b}[H\\u{9b}31m\\u{7f}\\u{85}\\u{2028}\\u{202e}\\u{e0001}end',
    );
    expect(inert(printable(HOSTILE))).toBe(true);
  });

  it('keeps the line breaks between lines, escaping within each', () => {
    expect(printableLines(`a\u001b[2J\nb\r`)).toBe('a\\u{1b}[2J\nb\\u{d}');
    const out = new PassThrough();
    writeLines(out, `style 3: ${HOSTILE}\nstyle 5: ok`);
    const written = String(out.read());
    expect(written.split('\n')).toHaveLength(3);
    expect(inert(written)).toBe(true);
  });
});

describe('printable JSON for --json', () => {
  it('escapes what JSON.stringify leaves raw (DEL, C1 such as the one-character CSI U+009B, separators, format characters)', () => {
    expect(inert(JSON.stringify({ name: HOSTILE }, null, 2))).toBe(false);
    const json = printableJson([{ id: 3, name: HOSTILE }]);
    expect(inert(json)).toBe(true);
    expect(json).toContain('\\u009b31m\\u007f\\u0085\\u2028\\u202e\\udb40\\udc01end');
  });

  it('is the same value for a parser, indented as before', () => {
    const value = [{ id: 3, name: HOSTILE, nested: { 'k\u009b': ['\u2029'] } }];
    const json = printableJson(value);
    expect(JSON.parse(json)).toEqual(value);
    expect(printableJson({ a: 'plain' })).toBe(`${JSON.stringify({ a: 'plain' }, null, 2)}\n`);
    expect(printableJson({ a: '\u0085' }, 0)).toBe('{"a":"\\u0085"}\n');
  });
});
