import { csvLine, neutralizeFormula, parseCsv } from '../../../src/campaign/manifest/csv';

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

  it("reports each fault on its record's first line and resumes after it, also inside multi-line records", () => {
    const { records, problems } = parseCsv('a,b\nu1,"two\nli"nes"\nu2,ok\r\nu3,x"y\nu4,"fine\nagain"\n');
    expect(problems).toEqual([
      { line: 2, message: 'unexpected text after a closing quote in field 2' },
      { line: 5, message: 'a quote inside the unquoted field 2' },
    ]);
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 4, fields: ['u2', 'ok'] },
      { line: 6, fields: ['u4', 'fine\nagain'] },
    ]);
  });
});

describe('csvLine', () => {
  it.each(['=1+2', '+1', '-2', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://evil")'])(
    'neutralises the text cell %j so a spreadsheet does not evaluate it',
    (cell) => {
      const [fields] = parseCsv(csvLine(['u1', cell])).records.map((r) => r.fields);
      expect(fields).toEqual(['u1', `'${cell}`]);
    },
  );

  it('leaves ordinary text, numbers (negative too) and empty cells as they are', () => {
    expect(csvLine(['u1', 'a=b', 7, -3, undefined, 'https://x/y?a=1'])).toBe(
      'u1,a=b,7,-3,,https://x/y?a=1\n',
    );
    expect(neutralizeFormula('plain')).toBe('plain');
  });
});
