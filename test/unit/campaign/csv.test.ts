import { csvLine, neutralizeFormula } from '../../../src/campaign/manifest/csv';
import { readCsv, type CsvLimits } from '../../../src/campaign/manifest/csv-reader';

const LIMITS: CsvLimits = { maxRecords: 1_000, maxRecordBytes: 1_000, maxProblems: 100 };

/** The text in pieces of `size` bytes, as a stream would bring it. */
async function* pieces(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

const parseCsv = (text: string, limits: Partial<CsvLimits> = {}, size = 64 * 1024) =>
  readCsv(pieces(text, size), { ...LIMITS, ...limits });

describe('readCsv', () => {
  it('reads plain records with their starting lines, skipping blank lines', async () => {
    const { records, problems } = await parseCsv('a,b,c\n1,2,3\n\n4,5,6\n');
    expect(problems).toEqual([]);
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', '2', '3'] },
      { line: 4, fields: ['4', '5', '6'] },
    ]);
  });

  it('handles quoted fields holding commas, doubled quotes and line breaks', async () => {
    const { records, problems } = await parseCsv(
      'id,note\r\nu1,"a, ""quoted"" note"\r\nu2,"two\nlines"\r\nu3,x',
    );
    expect(problems).toEqual([]);
    expect(records).toEqual([
      { line: 1, fields: ['id', 'note'] },
      { line: 2, fields: ['u1', 'a, "quoted" note'] },
      { line: 3, fields: ['u2', 'two\nlines'] },
      { line: 5, fields: ['u3', 'x'] },
    ]);
  });

  it('drops a byte-order mark and keeps empty fields', async () => {
    const { records } = await parseCsv('\uFEFFa,b,c\n,,\n');
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['', '', ''] },
    ]);
  });

  it('reports an unclosed quote at the line where the record starts', async () => {
    const { records, problems } = await parseCsv('a,b\n1,"never closed\n2,3\n');
    expect(records).toEqual([{ line: 1, fields: ['a', 'b'] }]);
    expect(problems).toEqual([{ line: 2, message: expect.stringMatching(/never closed/) }]);
  });

  it('reports text after a closing quote and a stray quote, and goes on with the next records', async () => {
    const { records, problems } = await parseCsv('a,b\n"x"y,1\nz,ab"c\nok,2\n');
    expect(problems.map((p) => p.line)).toEqual([2, 3]);
    expect(problems[0]!.message).toMatch(/after a closing quote/);
    expect(problems[1]!.message).toMatch(/quote inside/);
    expect(records.map((r) => r.fields)).toEqual([
      ['a', 'b'],
      ['ok', '2'],
    ]);
  });

  it('writes fields that round-trip through the reader', async () => {
    const line = csvLine(['u1', 'has, comma', 'has "quotes"', 'two\nlines', 7, undefined]);
    expect((await parseCsv(line)).records[0]!.fields).toEqual([
      'u1',
      'has, comma',
      'has "quotes"',
      'two\nlines',
      '7',
      '',
    ]);
  });

  it("reports each fault on its record's first line and resumes after it, also inside multi-line records", async () => {
    const { records, problems } = await parseCsv(
      'a,b\nu1,"two\nli"nes"\nu2,ok\r\nu3,x"y\nu4,"fine\nagain"\n',
    );
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

describe('readCsv while reading', () => {
  const inputs = [
    'a,b,c\n1,2,3\n\n4,5,6\n',
    'id,note\r\nu1,"a, ""quoted"" note"\r\nu2,"two\nlines"\r\nu3,x',
    '\uFEFFa,b,c\n,,\n',
    'a,b\nu1,"two\nli"nes"\nu2,ok\r\nu3,x"y\n\n\r\n\nu4,"fine\nagain"\n',
    'a,b\r\n\r\n\r\nx"1,2\r\nok,3\r\n',
  ];
  it.each(inputs)('reads %j the same however the bytes are cut up', async (text) => {
    const whole = await parseCsv(text);
    for (const size of [1, 2, 3, 5]) expect(await parseCsv(text, {}, size)).toEqual(whole);
  });

  it('numbers records and faults past blank lines', async () => {
    expect(await parseCsv(inputs[4]!)).toEqual({
      records: [
        { line: 1, fields: ['a', 'b'] },
        { line: 5, fields: ['ok', '3'] },
      ],
      problems: [{ line: 4, message: 'a quote inside the unquoted field 1' }],
    });
  });

  it('stops after the record limit: the records past it are never produced', async () => {
    const text = Array.from({ length: 50 }, (_, i) => `u${i},1`).join('\n');
    const result = await parseCsv(text, { maxRecords: 10 }, 7);
    expect(result.stopped).toBe('records');
    expect(result.records.map((r) => r.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('reports the first faults of a file of stray quotes with their lines, then stops', async () => {
    const text = ['subjectId,gender', ...Array.from({ length: 5_000 }, () => 'x"1,1')].join('\n');
    const result = await parseCsv(text, { maxRecords: 10_000, maxProblems: 100 }, 4096);
    expect(result.stopped).toBe('problems');
    expect(result.problems).toHaveLength(100);
    expect(result.problems.map((p) => p.line)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2));
    expect(new Set(result.problems.map((p) => p.message))).toEqual(
      new Set(['a quote inside the unquoted field 1']),
    );
  });

  it('refuses a record longer than the limit as it is read, and goes on after its line', async () => {
    const huge = `u1,${'3;'.repeat(10_000)}`;
    const result = await parseCsv(`a,b\n${huge}\nu2,5\n`, { maxRecordBytes: 1_000 }, 512);
    expect(result.problems).toEqual([
      { line: 2, message: 'is longer than the limit of 1000 bytes for one row' },
    ]);
    expect(result.records).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 3, fields: ['u2', '5'] },
    ]);
  });

  it('counts lines holding only spaces toward the record limit, without making rows of them', async () => {
    const result = await parseCsv(`a,b\n${' \n'.repeat(20)}u1,2\n`, { maxRecords: 10 });
    expect(result.stopped).toBe('records');
    expect(result.records).toEqual([{ line: 1, fields: ['a', 'b'] }]);
  });
});

describe('csvLine', () => {
  it.each(['=1+2', '+1', '-2', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://evil")'])(
    'neutralises the text cell %j so a spreadsheet does not evaluate it',
    async (cell) => {
      const [fields] = (await parseCsv(csvLine(['u1', cell]))).records.map((r) => r.fields);
      expect(fields).toEqual(['u1', `'${cell}`]);
    },
  );

  it('leaves ordinary text, numbers (negative too) and empty cells as they are', async () => {
    expect(csvLine(['u1', 'a=b', 7, -3, undefined, 'https://x/y?a=1'])).toBe(
      'u1,a=b,7,-3,,https://x/y?a=1\n',
    );
    expect(neutralizeFormula('plain')).toBe('plain');
  });
});
