import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  describeIssue,
  ManifestError,
  loadManifestFile,
  MAX_MANIFEST_BYTES,
  MAX_MANIFEST_ROWS,
  validateManifestObjects,
  validateManifestText,
  type ManifestIssue,
} from '../../../src/campaign/manifest';
import { writeSelfies } from '../../helpers/selfie-files';
import { temporaryDirectory } from '../../helpers/temp-dir';

const HEADER = 'subjectId,gender,styles,selfies,mainImage';

describe('campaign manifest validation', () => {
  let root: string;
  let selfies: { dir: string; files: string[] };
  let emptyDir: string;
  let notImage: string;

  beforeAll(async () => {
    selfies = await writeSelfies(3, 'manifest-selfies-');
    root = temporaryDirectory('manifest-');
    emptyDir = join(root, 'empty');
    await mkdir(emptyDir);
    notImage = join(root, 'notes.jpg');
    await writeFile(notImage, 'this is text, not a JPEG');
  });

  async function csv(rows: string[], options: Parameters<typeof validateManifestText>[1] = {}) {
    return validateManifestText([HEADER, ...rows].join('\n'), { format: 'csv', ...options });
  }

  const issuesOf = (issues: ManifestIssue[], row: number) =>
    issues.filter((i) => i.row === row).map((i) => `${i.field}: ${i.message}`);

  it('accepts a clean CSV: folders expand to their images, lists keep their order, main image by name or position', async () => {
    const [a, b, c] = selfies.files as [string, string, string];
    const result = await csv([
      `u1,1,3;5;7,${selfies.dir},`,
      `u2,man,"3,5",${c};${a},${basename(a)}`,
      `u3,2,8,${b},1`,
    ]);
    expect(result.issues).toEqual([]);
    expect(result.rows).toBe(3);
    expect(result.subjects).toEqual([
      { subjectId: 'u1', gender: 1, styles: [3, 5, 7], images: selfies.files, mainImageIndex: 0, row: 2 },
      { subjectId: 'u2', gender: 2, styles: [3, 5], images: [c, a], mainImageIndex: 1, row: 3 },
      { subjectId: 'u3', gender: 2, styles: [8], images: [b], mainImageIndex: 0, row: 4 },
    ]);
  });

  it('takes relative selfie paths from the manifest file folder, and header names in any case', async () => {
    const file = join(selfies.dir, 'campaign.csv');
    await writeFile(file, `Subject_ID,GENDER,styles,Selfies\r\nu1,1,3,selfie-2.png\r\nu2,2,3,.\r\n`);
    const result = await loadManifestFile(file);
    expect(result.issues).toEqual([]);
    expect(result.subjects.map((s) => s.images)).toEqual([[selfies.files[1]], selfies.files]);
  });

  it('reports every bad row with its line, field (as a path) and reason, and keeps the good ones apart', async () => {
    const [a] = selfies.files as [string];
    const many = Array.from({ length: 21 }, () => a).join(';');
    const result = await csv(
      [
        `ok1,1,3,${a},`, // line 2: good
        `,1,3,${a},`, // 3: missing subject id
        `bad id,1,3,${a},`, // 4: bad characters in the subject id
        `u4,3,3,${a},`, // 5: gender out of range
        `u5,1,3;x;7,${a},`, // 6: style not a number
        `u6,1,,${a},`, // 7: no style
        `u7,1,3;3,${a},`, // 8: repeated style
        `u8,1,3,${join(root, 'missing.png')},`, // 9: selfie file missing
        `u9,1,3,${emptyDir},`, // 10: folder without images
        `u10,1,3,${notImage},`, // 11: not an image
        `u11,1,3,${a},4`, // 12: main image out of range
        `u12,1,3,${a},nobody.png`, // 13: main image names no selfie
        `u13,1,3,${many},`, // 14: too many selfies
        `u14,1,3,ftp://host/x.png,`, // 15: not a file, folder or http(s) URL
        `u15,1,3`, // 16: too few fields
        `dup,1,3,${a},`, // 17: duplicate …
        `dup,2,5,${a},`, // 18: … of this one
        `ok2,2,5,${a},`, // 19: good
      ],
      { baseDir: root },
    );

    expect(result.subjects.map((s) => s.subjectId)).toEqual(['ok1', 'ok2']);
    expect(result.invalidRows).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
    expect(issuesOf(result.issues, 3)).toEqual(['subjectId: must not be empty']);
    expect(issuesOf(result.issues, 4)).toEqual([
      expect.stringMatching(/^subjectId: must start with a letter/),
    ]);
    expect(issuesOf(result.issues, 5)).toEqual(['gender: must be 1 (woman) or 2 (man)']);
    expect(issuesOf(result.issues, 6)).toEqual(['styles.1: must be a number']);
    expect(issuesOf(result.issues, 7)).toEqual(['styles: must name at least one style']);
    expect(issuesOf(result.issues, 8)).toEqual(['styles: must not repeat a style id']);
    expect(issuesOf(result.issues, 9)).toEqual([
      expect.stringMatching(/^selfies\.0: .*missing\.png does not exist$/),
    ]);
    expect(issuesOf(result.issues, 10)).toEqual([
      expect.stringMatching(/^selfies\.0: folder .* holds no \.jpg/),
    ]);
    expect(issuesOf(result.issues, 11)).toEqual([
      expect.stringMatching(/^selfies\.0: .*notes\.jpg is not a JPEG or PNG image$/),
    ]);
    expect(issuesOf(result.issues, 12)).toEqual(['mainImage: is 4, but the row has 1 selfie']);
    expect(issuesOf(result.issues, 13)).toEqual(['mainImage: "nobody.png" names none of the row\'s selfies']);
    expect(issuesOf(result.issues, 14)).toEqual(['selfies: must name at most 20 selfies']);
    expect(issuesOf(result.issues, 15)).toEqual([
      expect.stringMatching(
        /^selfies\.0: "ftp:\/\/host\/x\.png" must be a file, a folder or an http\(s\) URL$/,
      ),
    ]);
    expect(issuesOf(result.issues, 16)).toEqual(['(row): has 3 fields; the header has 5']);
    expect(issuesOf(result.issues, 17)).toEqual([
      'subjectId: "dup" is used by 2 rows (lines 17, 18); subject ids must be unique',
    ]);
    expect(issuesOf(result.issues, 18)).toEqual(issuesOf(result.issues, 17));
    expect(result.issues.find((i) => i.row === 6)?.subjectId).toBe('u5');
  });

  it('reports several problems of one row together', async () => {
    const result = await csv([`u1,9,3;x,${join(root, 'nope.png')},`]);
    expect(issuesOf(result.issues, 2)).toEqual([
      'gender: must be 1 (woman) or 2 (man)',
      'styles.1: must be a number',
      expect.stringMatching(/^selfies\.0: .*nope\.png does not exist$/),
    ]);
  });

  it('refuses styles the provider does not offer when the catalogue is known', async () => {
    const result = await csv([`u1,1,3;99,${selfies.files[0]},`], { knownStyles: [3, 5, 7] });
    expect(issuesOf(result.issues, 2)).toEqual([
      'styles.1: style 99 is not offered by the provider (styles: 3, 5, 7)',
    ]);
  });

  it('refuses selfies outside IMAGE_ROOTS and URLs on hosts not allowed, when given the policy', async () => {
    const result = await csv(
      [
        `u1,1,3,${selfies.files[0]},`,
        `u2,1,3,https://images.example.com/a.png,`,
        `u3,1,3,https://ok.example/a.jpg,`,
      ],
      { imageAccess: { roots: [root], urlHosts: ['ok.example'] } },
    );
    expect(issuesOf(result.issues, 2)).toEqual([
      expect.stringMatching(/outside the allowed image directories/),
    ]);
    expect(issuesOf(result.issues, 3)).toEqual([
      expect.stringMatching(/host "images\.example\.com" is not in the allowed/),
    ]);
    expect(result.subjects.map((s) => s.subjectId)).toEqual(['u3']);
  });

  it('refuses a header with an unknown or missing column before reading any row', async () => {
    const result = await validateManifestText(`subjectId,gender,style,selfies\nu1,1,3,${selfies.dir}\n`, {
      format: 'csv',
    });
    expect(result.subjects).toEqual([]);
    expect(result.issues.map(describeIssue)).toEqual([
      expect.stringMatching(/^line 1: \(header\): column 3 "style" is not a manifest column/),
      'line 1: (header): has no "styles" column',
    ]);
  });

  it('reports malformed CSV quoting with its line', async () => {
    const result = await csv([`u1,1,"3;5,${selfies.dir},`]);
    expect(result.issues).toEqual([
      { row: 2, field: '(row)', message: expect.stringMatching(/never closed/) },
    ]);
  });

  it('reads JSONL: arrays for styles and selfies; bad JSON, non-objects and unknown keys reported by line', async () => {
    const [a, b] = selfies.files as [string, string];
    const text = [
      JSON.stringify({ subjectId: 'j1', gender: 2, styles: [3, 5], selfies: [a, b], mainImage: 2 }),
      '',
      '{"subjectId": "j2", "gender": 1,',
      '[1, 2]',
      JSON.stringify({ subjectId: 'j4', gender: 1, styles: [3], selfies: [a], colour: 'red' }),
      JSON.stringify({ subjectId: 'j5', gender: 1, styles: ['3'], selfies: a }),
      JSON.stringify({ subjectId: 'j6', gender: 1, selfies: [a] }),
    ].join('\n');
    const result = await validateManifestText(text, { fileName: 'people.jsonl' });
    expect(result.format).toBe('jsonl');
    expect(result.rows).toBe(6);
    expect(result.subjects).toEqual([
      { subjectId: 'j1', gender: 2, styles: [3, 5], images: [a, b], mainImageIndex: 1, row: 1 },
    ]);
    expect(issuesOf(result.issues, 3)).toEqual([expect.stringMatching(/^\(row\): is not valid JSON/)]);
    expect(issuesOf(result.issues, 4)).toEqual(['(row): must be a JSON object']);
    expect(issuesOf(result.issues, 5)).toEqual([expect.stringMatching(/^colour: is not a manifest field/)]);
    expect(issuesOf(result.issues, 6)).toEqual(['styles.0: must be a number']);
    expect(issuesOf(result.issues, 7)).toEqual(['styles: is required']);
  });

  it('validates JSON rows (the API form): relative paths are refused without a base folder', async () => {
    const result = await validateManifestObjects([
      { subjectId: 'a1', gender: 1, styles: [3], selfies: [selfies.files[0]] },
      { subjectId: 'a2', gender: 1, styles: [3], selfies: ['selfie-1.png'] },
    ]);
    expect(result.subjects.map((s) => s.subjectId)).toEqual(['a1']);
    expect(issuesOf(result.issues, 2)).toEqual([
      'selfies.0: "selfie-1.png" must be an absolute path or an http(s) URL',
    ]);
  });

  it('takes an optional modelId column: such a row generates from that model (no selfies); bad values are named', async () => {
    const [a] = selfies.files as [string, string];
    const result = await validateManifestText(
      [
        'subjectId,gender,styles,selfies,mainImage,modelId',
        `t1,1,3,${a},,`, // 2: trains (blank modelId)
        'g1,2,5;7,,,1001', // 3: generates under model 1001
        'g2,1,3,,,abc', // 4: not a model id
        'g3,1,3,,,0', // 5: not positive
        `g4,1,3,${a},,1001`, // 6: selfies and a model
        'g5,1,3,,2,1001', // 7: a main image and a model
        'g6,1,3,,,', // 8: neither selfies nor a model
      ].join('\n'),
      { format: 'csv' },
    );
    expect(result.subjects).toEqual([
      { subjectId: 't1', gender: 1, styles: [3], images: [a], mainImageIndex: 0, row: 2 },
      { subjectId: 'g1', gender: 2, styles: [5, 7], images: [], mainImageIndex: 0, modelId: 1001, row: 3 },
    ]);
    expect(result.invalidRows).toEqual([4, 5, 6, 7, 8]);
    expect(issuesOf(result.issues, 4)).toEqual(['modelId: must be a model id (a positive whole number)']);
    expect(issuesOf(result.issues, 5)).toEqual(['modelId: must be a positive integer']);
    const unused = 'must be empty when modelId is set: the row generates from that model, nothing is trained';
    expect(issuesOf(result.issues, 6)).toEqual([`selfies: ${unused}`]);
    expect(issuesOf(result.issues, 7)).toEqual([`mainImage: ${unused}`]);
    expect(issuesOf(result.issues, 8)).toEqual([
      'selfies: is required (or a modelId, to generate from an existing model)',
    ]);
  });

  it('a header may have modelId instead of selfies; JSON rows take a number; the provider check names the field', async () => {
    const header = await validateManifestText('subjectId,gender,styles,modelId\ng1,1,3,1001\n', {
      format: 'csv',
    });
    expect(header.issues).toEqual([]);
    expect(header.subjects[0]).toMatchObject({ modelId: 1001, images: [] });
    const neither = await validateManifestText('subjectId,gender,styles\ng1,1,3\n', { format: 'csv' });
    expect(neither.issues.map(describeIssue)).toEqual([
      'line 1: (header): has no "selfies" column (or "modelId", for rows that generate from an existing model)',
    ]);

    const asked: { modelId: number; gender: number }[] = [];
    const result = await validateManifestObjects(
      [
        { subjectId: 'j1', gender: 1, styles: [3], modelId: 1001 },
        { subjectId: 'j2', gender: 2, styles: [3], modelId: 1001 },
        { subjectId: 'j3', gender: 1, styles: [3], modelId: 4242 },
        { subjectId: 'j4', gender: 1, styles: [3], modelId: 12.5 },
      ],
      {
        checkModel: async (target) => {
          asked.push(target);
          if (target.modelId !== 1001)
            return [{ field: 'modelId', message: 'the provider has no model 4242' }];
          return target.gender === 1
            ? []
            : [{ field: 'gender', message: 'model 1001 was trained for gender 1' }];
        },
      },
    );
    expect(result.subjects.map((s) => s.subjectId)).toEqual(['j1']);
    expect(issuesOf(result.issues, 2)).toEqual(['gender: model 1001 was trained for gender 1']);
    expect(issuesOf(result.issues, 3)).toEqual(['modelId: the provider has no model 4242']);
    expect(issuesOf(result.issues, 4)).toEqual(['modelId: must be a model id (a positive whole number)']);
    expect(asked).toEqual([
      { modelId: 1001, gender: 1 },
      { modelId: 1001, gender: 2 },
      { modelId: 4242, gender: 1 },
    ]);
  });

  it('refuses an empty manifest', async () => {
    expect((await validateManifestText('', { format: 'csv' })).issues.map(describeIssue)).toEqual([
      expect.stringMatching(/^line 1: \(file\): is empty/),
    ]);
    expect(
      (await validateManifestText(`${HEADER}\n\n`, { format: 'csv' })).issues.map(describeIssue),
    ).toEqual(['line 1: (file): holds no rows']);
  });

  it('names duplicates by count and first line: message size does not grow with the number of duplicates', async () => {
    const rows = Array.from({ length: 1_000 }, () => ({
      subjectId: 'same',
      gender: 1,
      styles: [3],
      selfies: [selfies.files[0]],
    }));
    const result = await validateManifestObjects(rows);
    const duplicates = result.issues.filter((i) => i.field === 'subjectId');
    expect(duplicates).toHaveLength(1_000);
    expect(new Set(duplicates.map((i) => i.message))).toEqual(
      new Set(['"same" is used by 1000 rows (first on line 1); subject ids must be unique']),
    );
    expect(result.subjects).toEqual([]);
  });

  it(`refuses a manifest of more than ${MAX_MANIFEST_ROWS} rows whole, before checking any row`, async () => {
    const lines = Array.from({ length: MAX_MANIFEST_ROWS + 1 }, (_, i) => `u${i},1,3,missing.png,`);
    const result = await csv(lines);
    expect(result.subjects).toEqual([]);
    expect(result.issues.map(describeIssue)).toEqual([
      `line 1: (file): has more than ${MAX_MANIFEST_ROWS} rows, the limit: split it into several campaigns`,
    ]);
    const jsonl = await validateManifestText(
      Array.from({ length: MAX_MANIFEST_ROWS + 1 }, (_, i) => JSON.stringify({ subjectId: `u${i}` })).join(
        '\n',
      ),
      { format: 'jsonl' },
    );
    expect(jsonl.issues).toHaveLength(1);
  });

  it(`refuses a manifest of more than ${MAX_MANIFEST_BYTES} bytes whole, text or file`, async () => {
    const text = `${HEADER}\n${'x'.repeat(MAX_MANIFEST_BYTES)}\n`;
    const expected = [expect.stringMatching(/^line 1: \(file\): is \d+ bytes, more than the limit of/)];
    expect((await validateManifestText(text, { format: 'csv' })).issues.map(describeIssue)).toEqual(expected);
    const file = join(root, 'huge.csv');
    await writeFile(file, text);
    expect((await loadManifestFile(file)).issues.map(describeIssue)).toEqual(expected);
  });

  it('stops reading at the row limit: the rows past it are not read, let alone counted', async () => {
    const rows = 3 * MAX_MANIFEST_ROWS;
    const result = await csv(Array.from({ length: rows }, (_, i) => `u${i},1,3,missing.png,`));
    expect(result.rows).toBe(MAX_MANIFEST_ROWS + 1);
    expect(result.issues).toEqual([
      { row: 1, field: '(file)', message: expect.stringMatching(/^has more than 10000 rows/) },
    ]);
    const jsonl = await validateManifestText(
      Array.from({ length: rows }, (_, i) => JSON.stringify({ subjectId: `u${i}` })).join('\n'),
      { format: 'jsonl' },
    );
    expect(jsonl.rows).toBe(MAX_MANIFEST_ROWS + 1);
  });

  it('refuses a manifest of stray-quote lines after the first 100 unreadable rows, each with its line', async () => {
    const result = await csv(Array.from({ length: 5_000 }, () => 'x"1,1,3,/a,'));
    expect(result.subjects).toEqual([]);
    expect(result.issues).toHaveLength(101);
    expect(result.issues[0]).toEqual({
      row: 1,
      field: '(file)',
      message: 'has 100 rows that cannot be read; reading stopped at line 101, the rest was not checked',
    });
    expect(result.issues.slice(1).map((i) => i.row)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2));
    expect(result.issues[1]!.message).toBe('a quote inside the unquoted field 1');
  });

  it('refuses a row too long to be valid as it is read (one issue, no list split), and reads on', async () => {
    const [a] = selfies.files as [string];
    const result = await csv([`u1,1,3,${'missing.png;'.repeat(6_000)},`, `u2,1,3,${a},`]);
    expect(result.issues).toEqual([
      { row: 2, field: '(row)', message: 'is longer than the limit of 65536 bytes for one row' },
    ]);
    expect(result.subjects.map((s) => s.subjectId)).toEqual(['u2']);
    const jsonl = await validateManifestText(
      [
        JSON.stringify({
          subjectId: 'j1',
          gender: 1,
          styles: [3],
          selfies: Array(6_000).fill('missing.png'),
        }),
        JSON.stringify({ subjectId: 'j2', gender: 1, styles: [3], selfies: [a] }),
      ].join('\n'),
      { format: 'jsonl' },
    );
    expect(jsonl.issues).toEqual([
      { row: 1, field: '(row)', message: 'is longer than the limit of 65536 bytes for one row' },
    ]);
    expect(jsonl.subjects.map((s) => s.subjectId)).toEqual(['j2']);
  });

  it('refuses lists past the caps by their length alone: one issue, no entry or file checked', async () => {
    const [a] = selfies.files as [string];
    const result = await validateManifestObjects([
      { subjectId: 'many-selfies', gender: 1, styles: [3], selfies: Array(100_000).fill('missing.png') },
      { subjectId: 'many-styles', gender: 1, styles: Array(1_000).fill('x'), selfies: [a] },
    ]);
    expect(result.issues.map(describeIssue)).toEqual([
      'line 1 (subject many-selfies): selfies: must name at most 20 selfies',
      'line 2 (subject many-styles): styles: must name at most 100 styles',
    ]);
    const text = await csv([`u1,1,${'x;'.repeat(1_000)},${a},`]);
    expect(text.issues.map(describeIssue)).toEqual([
      'line 2 (subject u1): styles: must name at most 100 styles',
    ]);
  });

  it('ManifestError lists the problems and says nothing started', () => {
    const error = new ManifestError(
      [
        { row: 3, subjectId: 'u2', field: 'styles.1', message: 'must be a number' },
        { row: 5, field: 'gender', message: 'must be 1 (woman) or 2 (man)' },
      ],
      4,
    );
    expect(error.message).toBe(
      'Invalid manifest: 2 problems in 2 of 4 rows; nothing was started\n' +
        '  line 3 (subject u2): styles.1: must be a number\n' +
        '  line 5: gender: must be 1 (woman) or 2 (man)',
    );
  });
});
