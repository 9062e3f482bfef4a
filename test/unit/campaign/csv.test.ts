import { csvLine, parseCsv } from '../../../src/campaign/manifest/csv';

describe('parseCsv', () => {
  it('reads plain records with their starting lines, skipping blank lines', () => {
    const { records, problems } = parseCsv('a,b,c\n1,2,3\n\n4,5,6\n');
    expect(problems).toEqual([]);
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', '2', '3'] },
      { line: 4, fields: ['4', '5', '6'] },
    ]);
  });

  it('handles quoted fields holding commas, doubled quotes and line breaks', () => {
    const { records, problems } = parseCsv('id,note\r\nu1,"a, ""quoted"" note"\r\nu2,"two\nlines"\r\nu3,x');
    expect(problems).toEqual([]);
    expect(records).toEqual([
      { line: 1, fields: ['id', 'note'] },
      { line: 2, fields: ['u1', 'a, "quoted" note'] },
      { line: 3, fields: ['u2', 'two\nlines'] },
      { line: 5, fields: ['u3', 'x'] },
    ]);
  });

  it('drops a byte-order mark and keeps empty fields', () => {
    const { records } = parseCsv('\uFEFFa,b,c\n,,\n');
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['', '', ''] },
    ]);
  });

  it('reports an unclosed quote at the line where the record starts', () => {
    const { records, problems } = parseCsv('a,b\n1,"never closed\n2,3\n');
    expect(records).toEqual([{ line: 1, fields: ['a', 'b'] }]);
    expect(problems).toEqual([{ line: 2, message: expect.stringMatching(/never closed/) }]);
  });

  it('reports text after a closing quote and a stray quote, and goes on with the next records', () => {
    const { records, problems } = parseCsv('a,b\n"x"y,1\nz,ab"c\nok,2\n');
    expect(problems.map((p) => p.line)).toEqual([2, 3]);
    expect(problems[0]!.message).toMatch(/after a closing quote/);
    expect(problems[1]!.message).toMatch(/quote inside/);
    expect(records.map((r) => r.fields)).toEqual([
      ['a', 'b'],
      ['ok', '2'],
    ]);
  });

  it('writes fields that round-trip through the reader', () => {
    const line = csvLine(['u1', 'has, comma', 'has "quotes"', 'two\nlines', 7, undefined]);
    expect(parseCsv(line).records[0]!.fields).toEqual([
      'u1',
      'has, comma',
      'has "quotes"',
      'two\nlines',
      '7',
      '',
    ]);
  });
});
