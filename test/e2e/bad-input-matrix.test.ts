import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../../src/config/load-config';
import { MAX_DEADLINE_MS, MAX_SELFIES, MAX_STYLES } from '@avatar-pipeline/client/contracts/limits';
import { DEFAULT_MAX_IMAGE_BYTES } from '@avatar-pipeline/client/provider/upload-image';
import { syntheticSelfiePng } from '../../src/samples/synthetic-selfie';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { jpegDeclaring, pngDeclaring, tinyJpeg } from '../fixtures/images';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { testConfig } from '../helpers/pipeline-worker';
import { runCli, type CliOutcome } from '../helpers/run-cli';
import { listWorkflowIds } from '../helpers/temporal-cli';
import { createDevServerEnv, devServerUnderTest, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { requireCompiledCli } from '../helpers/worker-process';
import { startTestApi } from '../helpers/test-api';

/*
 * The bad-input matrix: every kind of bad input, through the starter API (in process)
 * and the `avatar-pipeline` command (child processes), each answered with the expected HTTP
 * status or exit code and a message naming the field, and none starting a workflow. Every row
 * carries a request id (Idempotency-Key, --request-id, --campaign-id), so the workflow it would
 * have started is looked up by id; and at the end the matrix's own task queue holds exactly the
 * two control runs (one through each surface), which show the listing does see a start.
 */

const TOKEN = `matrix-token-${randomUUID()}`;
const API_MAX_FILE_BYTES = 64 * 1024;

/** Files the rows refer to, under one scratch directory: `allowed` is IMAGE_ROOTS, `outside` is not. */
interface Files {
  allowed: string;
  outside: string;
  selfies: string[];
  outsideSelfie: string;
  textAsJpeg: string;
  garbageJpeg: string;
  truncatedJpeg: string;
  truncatedPng: string;
  oversize: string;
  emptyDir: string;
  manyDir: string;
  badManifest: string;
  badModelManifest: string;
}

async function writeFiles(): Promise<Files> {
  const root = await makeScratchDir('bad-input');
  const allowed = path.join(root, 'allowed');
  const outside = path.join(root, 'outside');
  const emptyDir = path.join(allowed, 'empty');
  const manyDir = path.join(allowed, 'many');
  for (const dir of [allowed, outside, emptyDir, manyDir]) await mkdir(dir, { recursive: true });
  const write = async (file: string, bytes: Buffer | string) => {
    await writeFile(file, bytes);
    return file;
  };
  const png = syntheticSelfiePng(1, 64);
  const jpeg = tinyJpeg(64, 64);
  const selfies = [
    await write(path.join(allowed, 'selfie-1.png'), png),
    await write(path.join(allowed, 'selfie-2.png'), syntheticSelfiePng(2, 64)),
  ];
  for (let i = 1; i <= MAX_SELFIES + 1; i++) {
    await write(path.join(manyDir, `s${String(i).padStart(2, '0')}.png`), syntheticSelfiePng(i, 16));
  }
  const files: Files = {
    allowed,
    outside,
    selfies,
    outsideSelfie: await write(path.join(outside, 'selfie.png'), png),
    textAsJpeg: await write(path.join(allowed, 'notes.jpg'), 'this is a text file, not a photo\n'),
    garbageJpeg: await write(
      path.join(allowed, 'garbage.jpg'),
      Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('not image data '.repeat(64))]),
    ),
    truncatedJpeg: await write(path.join(allowed, 'truncated.jpg'), jpeg.subarray(0, jpeg.length >> 1)),
    truncatedPng: await write(path.join(allowed, 'truncated.png'), png.subarray(0, png.length >> 1)),
    // A whole PNG padded past the workers' size limit: refused for its size, not its contents.
    oversize: await write(
      path.join(allowed, 'oversize.png'),
      Buffer.concat([png, Buffer.alloc(DEFAULT_MAX_IMAGE_BYTES + 1 - png.length)]),
    ),
    emptyDir,
    manyDir,
    badManifest: path.join(allowed, 'manifest.csv'),
    badModelManifest: path.join(allowed, 'model-manifest.csv'),
  };
  await write(
    files.badModelManifest,
    ['subjectId,gender,styles,modelId', 'text-model,1,3,abc', 'unknown-model,1,3,999999', ''].join('\n'),
  );
  await write(
    files.badManifest,
    [
      'subjectId,gender,styles,selfies,mainImage',
      `good,1,3,${selfies[0]},`,
      `bad-gender,3,3,${selfies[0]},`,
      `bad-style,1,3;4,${selfies[0]},`,
      `not-an-image,2,3,${files.textAsJpeg},`,
      `outside,1,3,${files.outsideSelfie},`,
      `bad-main,1,3,${selfies[0]},7`,
      '',
    ].join('\n'),
  );
  return files;
}

interface ApiRequest {
  body?: unknown;
  form?: FormData;
  /** null: no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
}

interface ApiRow {
  name: string;
  request: (f: Files) => ApiRequest | Promise<ApiRequest>;
  status: number;
  /** The issue path naming the field; undefined when the answer names no single field (then `message` is matched against `error`). */
  field?: string;
  message: RegExp;
}

interface CliRow {
  name: string;
  /** `run` rows get `--request-id` and `--json` added; campaign rows `--campaign-id`. */
  args: (f: Files) => string[];
  /** Added to (or, with undefined, removed from) the base environment. */
  env?: Record<string, string | undefined>;
  exit: number;
  message: RegExp;
}

const jsonRequest = (f: Files, patch: Record<string, unknown>): ApiRequest => ({
  body: { images: f.selfies, styles: [3], gender: 1, ...patch },
});

async function formRequest(
  files: { name: string; bytes: Buffer | string }[],
  fields: Record<string, string> = { styles: '3', gender: '1' },
): Promise<ApiRequest> {
  const form = new FormData();
  for (const { name, bytes } of files) form.append('selfies', new Blob([bytes]), name);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return Promise.resolve({ form });
}

const selfieUpload = async (f: Files) => [{ name: 'selfie-1.png', bytes: await readFile(f.selfies[0]!) }];

const API_ROWS: ApiRow[] = [
  {
    name: 'gender 0',
    request: (f) => jsonRequest(f, { gender: 0 }),
    status: 422,
    field: 'gender',
    message: /must be 1 \(woman\) or 2 \(man\)/,
  },
  {
    name: 'gender 3',
    request: (f) => jsonRequest(f, { gender: 3 }),
    status: 422,
    field: 'gender',
    message: /must be 1/,
  },
  {
    name: 'gender "x" (JSON)',
    request: (f) => jsonRequest(f, { gender: 'x' }),
    status: 422,
    field: 'gender',
    message: /must be 1/,
  },
  {
    name: 'gender "x" (multipart)',
    request: async (f) => formRequest(await selfieUpload(f), { styles: '3', gender: 'x' }),
    status: 422,
    field: 'gender',
    message: /must be 1/,
  },
  {
    name: 'empty styles',
    request: (f) => jsonRequest(f, { styles: [] }),
    status: 422,
    field: 'styles',
    message: /at least one style/,
  },
  {
    name: 'unknown style id',
    request: (f) => jsonRequest(f, { styles: [3, 4] }),
    status: 422,
    field: 'styles.1',
    message: /style 4 is not offered by the provider \(offered: 3, 5, 7/,
  },
  {
    name: 'unknown style id (multipart)',
    request: async (f) => formRequest(await selfieUpload(f), { styles: '99', gender: '1' }),
    status: 422,
    field: 'styles.0',
    message: /style 99 is not offered/,
  },
  {
    name: 'non-integer style 3.5',
    request: (f) => jsonRequest(f, { styles: [3.5] }),
    status: 422,
    field: 'styles.0',
    message: /integer/,
  },
  {
    name: 'non-integer style "abc" (multipart)',
    request: async (f) => formRequest(await selfieUpload(f), { styles: '3,abc', gender: '1' }),
    status: 422,
    field: 'styles.1',
    message: /number/,
  },
  {
    name: 'repeated style',
    request: (f) => jsonRequest(f, { styles: [3, 3] }),
    status: 422,
    field: 'styles',
    message: /repeat/,
  },
  {
    name: 'no selfies (JSON)',
    request: (f) => jsonRequest(f, { images: [] }),
    status: 422,
    field: 'images',
    message: /at least one selfie/,
  },
  {
    name: 'no selfies (multipart)',
    request: () => formRequest([]),
    status: 422,
    field: 'selfies',
    message: /at least one/,
  },
  {
    name: 'too many selfies (JSON)',
    request: (f) => jsonRequest(f, { images: Array.from({ length: MAX_SELFIES + 1 }, () => f.selfies[0]) }),
    status: 422,
    field: 'images',
    message: new RegExp(`at most ${MAX_SELFIES} selfies`),
  },
  {
    name: 'too many selfies (multipart)',
    request: async (f) => {
      const bytes = await readFile(f.selfies[0]!);
      return formRequest(Array.from({ length: MAX_SELFIES + 1 }, (_, i) => ({ name: `s${i}.png`, bytes })));
    },
    status: 413,
    field: 'selfies',
    message: new RegExp(`at most ${MAX_SELFIES} files`),
  },
  {
    name: 'not an image: text named .jpg (multipart)',
    request: async (f) => formRequest([{ name: 'notes.jpg', bytes: await readFile(f.textAsJpeg) }]),
    status: 415,
    field: 'selfies.0',
    message: /"notes\.jpg" is not a JPEG or PNG image/,
  },
  {
    name: 'not an image: text named .jpg (reference)',
    request: (f) => jsonRequest(f, { images: [f.selfies[0], f.textAsJpeg] }),
    status: 422,
    field: 'images.1',
    message: /not a JPEG or PNG image/,
  },
  {
    name: 'corrupt: garbage behind JPEG magic (multipart)',
    request: async (f) => formRequest([{ name: 'garbage.jpg', bytes: await readFile(f.garbageJpeg) }]),
    status: 422,
    field: 'selfies.0',
    message: /JPEG image/,
  },
  {
    name: 'corrupt: truncated JPEG (multipart)',
    request: async (f) => formRequest([{ name: 'cut.jpg', bytes: await readFile(f.truncatedJpeg) }]),
    status: 422,
    field: 'selfies.0',
    message: /truncated JPEG/,
  },
  {
    name: 'corrupt: truncated PNG (reference)',
    request: (f) => jsonRequest(f, { images: [f.truncatedPng] }),
    status: 422,
    field: 'images.0',
    message: /truncated PNG/,
  },
  {
    name: 'oversize file (multipart, over API_MAX_FILE_BYTES)',
    request: async (f) => {
      const png = await readFile(f.selfies[0]!);
      return formRequest([
        { name: 'big.png', bytes: Buffer.concat([png, Buffer.alloc(API_MAX_FILE_BYTES)]) },
      ]);
    },
    status: 413,
    field: 'selfies.0',
    message: new RegExp(`larger than ${API_MAX_FILE_BYTES} bytes`),
  },
  {
    name: "oversize file (reference, over the workers' limit)",
    request: (f) => jsonRequest(f, { images: [f.oversize] }),
    status: 422,
    field: 'images.0',
    message: new RegExp(`more than the limit of ${DEFAULT_MAX_IMAGE_BYTES} bytes`),
  },
  {
    name: 'path traversal in a reference',
    request: (f) => jsonRequest(f, { images: [`${f.allowed}/../outside/selfie.png`] }),
    status: 422,
    field: 'images.0',
    message: /outside the allowed image directories \(IMAGE_ROOTS\)/,
  },
  {
    name: 'path traversal to /etc/passwd',
    request: (f) => jsonRequest(f, { images: [`${f.allowed}/${'../'.repeat(12)}etc/passwd`] }),
    status: 422,
    field: 'images.0',
    message: /IMAGE_ROOTS/,
  },
  {
    name: 'a reference outside IMAGE_ROOTS',
    request: (f) => jsonRequest(f, { images: [f.outsideSelfie] }),
    status: 422,
    field: 'images.0',
    message: /IMAGE_ROOTS/,
  },
  {
    name: 'a relative path',
    request: (f) => jsonRequest(f, { images: ['selfie-1.png'] }),
    status: 422,
    field: 'images.0',
    message: /absolute file path/,
  },
  {
    name: 'inline image data instead of a reference',
    request: (f) => jsonRequest(f, { images: ['data:image/png;base64,iVBORw0KGgo='] }),
    status: 422,
    field: 'images.0',
    message: /not inline image data/,
  },
  {
    name: 'a URL to a host not allowed',
    request: (f) => jsonRequest(f, { images: ['https://images.evil.test/a.jpg'] }),
    status: 422,
    field: 'images.0',
    message: /"images\.evil\.test" is not in the allowed image hosts \(IMAGE_URL_HOSTS\)/,
  },
  {
    name: 'a URL to a private address (10.0.0.1)',
    request: (f) => jsonRequest(f, { images: ['http://10.0.0.1/a.jpg'] }),
    status: 422,
    field: 'images.0',
    message: /"10\.0\.0\.1" is not in the allowed image hosts/,
  },
  {
    name: 'a URL to the cloud metadata address (169.254.169.254)',
    request: (f) => jsonRequest(f, { images: ['http://169.254.169.254/latest/meta-data/'] }),
    status: 422,
    field: 'images.0',
    message: /"169\.254\.169\.254" is not in the allowed image hosts/,
  },
  {
    name: 'an allowed host name that resolves to a loopback address',
    request: (f) => jsonRequest(f, { images: ['http://localhost/a.jpg'] }),
    status: 422,
    field: 'images.0',
    message: /resolves to a private address/,
  },
  {
    name: 'an ftp:// image URL',
    request: (f) => jsonRequest(f, { images: ['ftp://images.example.test/a.jpg'] }),
    status: 422,
    field: 'images.0',
    message: /http or https/,
  },
  {
    name: 'mainImageIndex out of range',
    request: (f) => jsonRequest(f, { mainImageIndex: 2 }),
    status: 422,
    field: 'mainImageIndex',
    message: /must point at one of the images/,
  },
  {
    name: 'mainImageIndex negative',
    request: (f) => jsonRequest(f, { mainImageIndex: -1 }),
    status: 422,
    field: 'mainImageIndex',
    message: /negative/,
  },
  {
    name: 'mainImage naming no uploaded file (multipart)',
    request: async (f) =>
      formRequest(await selfieUpload(f), { styles: '3', gender: '1', mainImage: 'other.png' }),
    status: 422,
    field: 'mainImage',
    message: /file name of one of the uploaded selfies/,
  },
  {
    name: 'callbackUrl ftp://',
    request: (f) => jsonRequest(f, { callbackUrl: 'ftp://hooks.example.test/done' }),
    status: 422,
    field: 'callbackUrl',
    message: /http\(s\) URL/,
  },
  {
    name: 'callbackUrl with user:pass@',
    request: (f) => jsonRequest(f, { callbackUrl: 'https://user:pass@hooks.example.test/done' }),
    status: 422,
    field: 'callbackUrl',
    message: /credentials/,
  },
  {
    name: 'callbackUrl to a private address',
    request: (f) => jsonRequest(f, { callbackUrl: 'http://10.1.2.3/hook' }),
    status: 422,
    field: 'callbackUrl',
    message: /private address/,
  },
  {
    name: 'negative trainingDeadlineMs',
    request: (f) => jsonRequest(f, { trainingDeadlineMs: -1 }),
    status: 422,
    field: 'trainingDeadlineMs',
    message: /too small|greater than|positive/i,
  },
  {
    name: 'generationDeadlineMs 0 (multipart)',
    request: async (f) =>
      formRequest(await selfieUpload(f), { styles: '3', gender: '1', generationDeadlineMs: '0' }),
    status: 422,
    field: 'generationDeadlineMs',
    message: /too small|greater than|positive/i,
  },
  {
    name: 'negative polling interval',
    request: (f) => jsonRequest(f, { polling: { initialIntervalMs: -5 } }),
    status: 422,
    field: 'polling.initialIntervalMs',
    message: /too small|greater than|positive/i,
  },
  {
    name: 'a field the request does not have',
    request: (f) => jsonRequest(f, { colour: 'blue' }),
    status: 422,
    field: '',
    message: /colour/,
  },
  {
    name: 'malformed JSON body',
    request: () => ({
      body: '{"images": ["/a.png"], "styles": [3',
      headers: { 'content-type': 'application/json' },
    }),
    status: 400,
    message: /JSON|Malformed/,
  },
  {
    name: 'empty JSON body',
    request: () => ({ body: '', headers: { 'content-type': 'application/json' } }),
    status: 400,
    message: /JSON body is empty/,
  },
  {
    name: 'wrong content type (text/plain)',
    request: () => ({ body: 'images=/a.png&styles=3', headers: { 'content-type': 'text/plain' } }),
    status: 415,
    message: /application\/json or multipart\/form-data/,
  },
  {
    name: 'wrong content type (form-urlencoded)',
    request: () => ({
      body: 'styles=3&gender=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
    status: 415,
    message: /application\/json/,
  },
  {
    name: 'missing API token',
    request: (f) => ({ ...jsonRequest(f, {}), token: null }),
    status: 401,
    message: /bearer token/,
  },
  {
    name: 'wrong API token',
    request: (f) => ({ ...jsonRequest(f, {}), token: `${TOKEN}-wrong` }),
    status: 401,
    message: /bearer token/,
  },
  {
    name: 'a malformed Idempotency-Key',
    request: (f) => ({ ...jsonRequest(f, {}), headers: { 'idempotency-key': 'has spaces/and slashes' } }),
    status: 422,
    field: 'headers.idempotency-key',
    message: /letters, digits/,
  },
  // Hardening: IPv6 spellings of private IPv4, image bombs, existence outside IMAGE_ROOTS.
  {
    name: 'callbackUrl to loopback as IPv4-mapped IPv6',
    request: (f) => jsonRequest(f, { callbackUrl: 'http://[::ffff:127.0.0.1]:9000/hook' }),
    status: 422,
    field: 'callbackUrl',
    message: /private address/,
  },
  {
    name: 'callbackUrl to the metadata address as IPv4-mapped IPv6',
    request: (f) => jsonRequest(f, { callbackUrl: 'http://[::ffff:a9fe:a9fe]/latest' }),
    status: 422,
    field: 'callbackUrl',
    message: /private address/,
  },
  {
    name: 'callbackUrl to loopback through NAT64',
    request: (f) => jsonRequest(f, { callbackUrl: 'http://[64:ff9b::7f00:1]/hook' }),
    status: 422,
    field: 'callbackUrl',
    message: /private address/,
  },
  // Documentation and other ranges that are not globally reachable.
  {
    name: 'callbackUrl to a documentation address (192.0.2.2, TEST-NET-1)',
    request: (f) => jsonRequest(f, { callbackUrl: 'http://192.0.2.2/hook' }),
    status: 422,
    field: 'callbackUrl',
    message: /private address \(192\.0\.2\.2\)/,
  },
  {
    name: 'callbackUrl to the IPv6 documentation prefix (2001:db8::/32)',
    request: (f) => jsonRequest(f, { callbackUrl: 'http://[2001:db8::1]/hook' }),
    status: 422,
    field: 'callbackUrl',
    message: /private address/,
  },
  {
    name: 'callbackUrl to the IPv6 discard prefix (100::/64)',
    request: (f) => jsonRequest(f, { callbackUrl: 'http://[100::1]/hook' }),
    status: 422,
    field: 'callbackUrl',
    message: /private address/,
  },
  {
    name: 'image bomb: a tiny PNG declaring 2^31-1 x 2^31-1 (multipart)',
    request: () => formRequest([{ name: 'bomb.png', bytes: pngDeclaring(2 ** 31 - 1, 2 ** 31 - 1) }]),
    status: 422,
    field: 'selfies.0',
    message: /declares 2147483647 × 2147483647 pixels, more than the limit/,
  },
  // Under the pixel limit, but 392 MB of 16-bit samples once decoded.
  {
    name: 'image bomb: a 7000 x 7000 PNG of 16-bit RGBA samples (multipart)',
    request: () =>
      formRequest([{ name: 'deep.png', bytes: pngDeclaring(7_000, 7_000, { bitDepth: 16, colorType: 6 }) }]),
    status: 422,
    field: 'selfies.0',
    message:
      /declares 7000 × 7000 pixels of 4 × 16-bit samples \(392,000,000 bytes decoded\), more than the limit/,
  },
  {
    name: 'image bomb: a JPEG declaring 65535 x 65535 (file reference)',
    request: async (f) => {
      const bomb = path.join(f.allowed, 'bomb.jpg');
      await writeFile(bomb, jpegDeclaring(65_535, 65_535));
      return jsonRequest(f, { images: [bomb] });
    },
    status: 422,
    field: 'images.0',
    message: /declares 65535 × 65535 pixels, more than the limit/,
  },
  {
    name: 'a wrong selfie path under IMAGE_ROOTS (a file that is not there)',
    request: (f) => jsonRequest(f, { images: [f.selfies[0]!, path.join(f.allowed, 'selfie-9.png')] }),
    status: 422,
    field: 'images.1',
    message: /does not exist|not found/,
  },
  {
    name: 'a missing file outside IMAGE_ROOTS (same answer as an existing one)',
    request: (f) => jsonRequest(f, { images: [path.join(f.outside, 'no-such-file.png')] }),
    status: 422,
    field: 'images.0',
    message: /^is outside the allowed image directories \(IMAGE_ROOTS\)$/,
  },
  {
    name: 'subjectId with a terminal escape sequence',
    request: (f) => jsonRequest(f, { subjectId: '\u001b[2J\u001b[31mowned' }),
    status: 422,
    field: 'subjectId',
    message: /must start with a letter or digit and hold only letters, digits/,
  },
  {
    name: 'campaignId on a plain pipeline (the campaign sets it)',
    request: (f) => jsonRequest(f, { campaignId: 'someone-elses-campaign' }),
    status: 422,
    field: 'campaignId',
    message: /is set by the campaign that starts a pipeline/,
  },
  {
    name: 'more styles than the maximum',
    request: (f) => jsonRequest(f, { styles: Array.from({ length: MAX_STYLES + 1 }, (_, i) => i + 1) }),
    status: 422,
    field: 'styles',
    message: new RegExp(`at most ${MAX_STYLES} styles`),
  },
  {
    name: 'a 285,000-year training deadline',
    request: (f) => jsonRequest(f, { trainingDeadlineMs: Number.MAX_SAFE_INTEGER }),
    status: 422,
    field: 'trainingDeadlineMs',
    message: new RegExp(`at most ${MAX_DEADLINE_MS} \\(7 days\\)`),
  },
  {
    name: 'a polling interval of years',
    request: (f) => jsonRequest(f, { polling: { maxIntervalMs: Number.MAX_SAFE_INTEGER } }),
    status: 422,
    field: 'polling.maxIntervalMs',
    message: /at most 3600000 \(1 hour\)/,
  },
  {
    name: 'a __proto__ key in the JSON body',
    request: () => ({
      body: '{"images":["/a.png"],"styles":[3],"gender":1,"__proto__":{"isAdmin":true}}',
      headers: { 'content-type': 'application/json' },
    }),
    status: 400,
    message: /"__proto__" and "constructor" keys are not allowed/,
  },
];

const CLI_ROWS: CliRow[] = [
  {
    name: 'gender 0',
    args: (f) => run(f, ['--gender', '0']),
    exit: 2,
    message: /--gender: "0" must be 1 \(woman\) or 2 \(man\)/,
  },
  { name: 'gender 3', args: (f) => run(f, ['--gender', '3']), exit: 2, message: /--gender: "3" must be 1/ },
  { name: 'gender x', args: (f) => run(f, ['--gender', 'x']), exit: 2, message: /--gender: "x" must be 1/ },
  {
    name: 'gender missing',
    args: (f) => ['run', '--images', f.selfies[0]!, '--styles', '3'],
    exit: 2,
    message: /--gender/,
  },
  {
    name: 'empty styles',
    args: (f) => run(f, ['--styles', '']),
    exit: 2,
    message: /--styles: "" is not a style id/,
  },
  {
    name: 'unknown style id',
    args: (f) => run(f, ['--styles', '3,4']),
    exit: 2,
    message: /--styles: 4 is not offered by the provider \(offered: 3, 5, 7/,
  },
  {
    name: 'non-integer style',
    args: (f) => run(f, ['--styles', '3.5']),
    exit: 2,
    message: /--styles: "3.5" is not a style id/,
  },
  {
    name: 'no selfies: an empty folder',
    args: (f) => run(f, ['--images', f.emptyDir]),
    exit: 2,
    message: /--images: directory .* holds no \.jpg, \.jpeg or \.png files/,
  },
  {
    name: 'too many selfies',
    args: (f) => run(f, ['--images', f.manyDir]),
    exit: 2,
    message: new RegExp(`--images: must name at most ${MAX_SELFIES} selfies`),
  },
  {
    name: 'not an image: text named .jpg',
    args: (f) => run(f, ['--images', f.selfies[0]!, f.textAsJpeg]),
    exit: 2,
    message: /--images\[1\] \(.*notes\.jpg\): is not a JPEG or PNG image/,
  },
  {
    name: 'corrupt: garbage behind JPEG magic',
    args: (f) => run(f, ['--images', f.garbageJpeg]),
    exit: 2,
    message: /--images\[0\] \(.*garbage\.jpg\): is a (truncated|damaged) JPEG image/,
  },
  {
    name: 'corrupt: truncated JPEG',
    args: (f) => run(f, ['--images', f.truncatedJpeg]),
    exit: 2,
    message: /--images\[0\] \(.*truncated\.jpg\): is a truncated JPEG image/,
  },
  {
    name: 'corrupt: truncated PNG',
    args: (f) => run(f, ['--images', f.truncatedPng]),
    exit: 2,
    message: /--images\[0\] \(.*truncated\.png\): is a truncated PNG image/,
  },
  {
    name: 'oversize file',
    args: (f) => run(f, ['--images', f.oversize]),
    exit: 2,
    message: new RegExp(
      `--images\\[0\\] \\(.*oversize\\.png\\): is \\d+ bytes, more than the limit of ${DEFAULT_MAX_IMAGE_BYTES}`,
    ),
  },
  {
    name: 'a missing file',
    args: (f) => run(f, ['--images', path.join(f.allowed, 'nope.png')]),
    exit: 2,
    message: /--images: .*nope\.png does not exist/,
  },
  {
    name: 'path traversal out of IMAGE_ROOTS',
    args: (f) => run(f, ['--images', `${f.allowed}/../outside/selfie.png`]),
    exit: 2,
    message:
      /--images\[0\] \(.*outside\/selfie\.png\): is outside the allowed image directories \(IMAGE_ROOTS\)/,
  },
  {
    name: 'a file outside IMAGE_ROOTS',
    args: (f) => run(f, ['--images', f.outsideSelfie]),
    exit: 2,
    message: /--images\[0\] .*IMAGE_ROOTS/,
  },
  {
    name: 'main image out of range',
    args: (f) => run(f, ['--main-image', '3']),
    exit: 2,
    message: /--main-image: must point at one of the images/,
  },
  {
    name: 'main image 0',
    args: (f) => run(f, ['--main-image', '0']),
    exit: 2,
    message: /--main-image: "0" must be a position from 1/,
  },
  {
    name: 'subject id with a terminal escape sequence',
    args: (f) => run(f, ['--subject', '\u001b[31mred']),
    exit: 2,
    message: /--subject: must start with a letter or digit/,
  },
  {
    name: 'campaign: a manifest with bad rows (line numbers, nothing started)',
    args: (f) => ['campaign', '--manifest', f.badManifest],
    exit: 2,
    message:
      /5 problems in 5 of 6 rows; nothing was started[\s\S]*line 3 \(subject bad-gender\): gender: must be 1[\s\S]*line 4 \(subject bad-style\): styles\.1: style 4 is not offered[\s\S]*line 5 \(subject not-an-image\): selfies\.0: .*notes\.jpg is not a JPEG or PNG image[\s\S]*line 6 \(subject outside\): selfies\.0: .*IMAGE_ROOTS[\s\S]*line 7 \(subject bad-main\): mainImage: is 7, but the row has 1 selfie/,
  },
  {
    name: 'campaign: modelId rows, one not a number and one the provider does not have (nothing started)',
    args: (f) => ['campaign', '--manifest', f.badModelManifest],
    exit: 2,
    message:
      /2 problems in 2 of 2 rows; nothing was started[\s\S]*line 2 \(subject text-model\): modelId: must be a model id \(a positive whole number\)[\s\S]*line 3 \(subject unknown-model\): modelId: the provider has no model 999999/,
  },
  {
    name: 'campaign: a manifest that does not exist',
    args: (f) => ['campaign', '--manifest', path.join(f.allowed, 'missing.csv')],
    exit: 2,
    message: /--manifest: .*missing\.csv does not exist/,
  },
  {
    name: 'worker: a real provider without PROVIDER_API_KEY',
    args: () => ['worker'],
    env: { PROVIDER_BASE_URL: 'https://provider.example.test/v1', PROVIDER_API_KEY: undefined },
    exit: 2,
    message: /PROVIDER_API_KEY: is required when PROVIDER_BASE_URL points at a real provider/,
  },
  {
    name: 'api: a real provider without PROVIDER_API_KEY',
    args: () => ['api', '--port', '0'],
    env: { PROVIDER_BASE_URL: 'https://provider.example.test/v1', PROVIDER_API_KEY: undefined },
    exit: 2,
    message: /PROVIDER_API_KEY: is required/,
  },
  {
    name: 'api: no API_TOKENS',
    args: () => ['api', '--port', '0'],
    env: { API_TOKENS: undefined },
    exit: 2,
    message: /API_TOKENS: is empty: the API refuses to run without bearer tokens/,
  },
  {
    name: 'worker: a bad PROVIDER_BASE_URL',
    args: () => ['worker'],
    env: { PROVIDER_BASE_URL: 'ftp://provider.example.test' },
    exit: 2,
    message: /PROVIDER_BASE_URL: must be an http\(s\) URL/,
  },
  {
    name: 'worker: AVATAR_PRIVATE_HOSTS given as a URL',
    args: () => ['worker'],
    env: { AVATAR_PRIVATE_HOSTS: 'http://cdn.internal:8080/' },
    exit: 2,
    message: /AVATAR_PRIVATE_HOSTS: "http:\/\/cdn\.internal:8080\/" is not a host name or IP address/,
  },
  {
    name: 'run: a malformed TEMPORAL_ADDRESS',
    args: (f) => run(f, []),
    env: { TEMPORAL_ADDRESS: 'http://localhost:7233/' },
    exit: 2,
    message: /TEMPORAL_ADDRESS: must be host:port/,
  },
  {
    name: 'worker: a malformed TEMPORAL_ADDRESS',
    args: () => ['worker'],
    env: { TEMPORAL_ADDRESS: 'localhost' },
    exit: 2,
    message: /TEMPORAL_ADDRESS: must be host:port/,
  },
  {
    // A well-formed address nothing answers at: the setting may be right and the server down, so 1.
    name: 'run: an unreachable TEMPORAL_ADDRESS',
    args: (f) => run(f, []),
    env: { TEMPORAL_ADDRESS: '127.0.0.1:1' },
    exit: 1,
    message: /Cannot reach Temporal at 127\.0\.0\.1:1 \(TEMPORAL_ADDRESS\)/,
  },
  {
    name: 'worker: an unreachable TEMPORAL_ADDRESS',
    args: () => ['worker'],
    env: { TEMPORAL_ADDRESS: '127.0.0.1:1' },
    exit: 1,
    message: /Cannot reach Temporal at 127\.0\.0\.1:1 \(TEMPORAL_ADDRESS\)/,
  },
  // A codec token short enough to guess is refused at start.
  {
    name: 'codec-server: a one-character CODEC_SERVER_TOKENS',
    args: () => ['codec-server', '--port', '0'],
    env: { CODEC_SERVER_TOKENS: 'x', ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` },
    exit: 2,
    message: /CODEC_SERVER_TOKENS: token 1 is 1 characters; use at least 16/,
  },
  {
    name: 'image bomb: a tiny PNG declaring 2^31-1 x 2^31-1',
    args: (f) => {
      const bomb = path.join(f.allowed, 'bomb.png');
      writeFileSync(bomb, pngDeclaring(2 ** 31 - 1, 2 ** 31 - 1));
      return run(f, ['--images', bomb]);
    },
    exit: 2,
    message: /--images\[0\] \(.*bomb\.png\): declares 2147483647 × 2147483647 pixels, more than the limit/,
  },
];

/** `run` with good flags, `flags` replacing or adding to them. */
function run(f: Files, flags: string[]): string[] {
  const args: Record<string, string[]> = {
    '--images': f.selfies,
    '--styles': ['3'],
    '--gender': ['1'],
  };
  for (let i = 0; i < flags.length;) {
    const name = flags[i]!;
    const values: string[] = [];
    for (i++; i < flags.length && !flags[i]!.startsWith('--'); i++) values.push(flags[i]!);
    args[name] = values;
  }
  return ['run', ...Object.entries(args).flatMap(([name, values]) => [name, ...values])];
}

describe('bad-input matrix: the API and the CLI refuse bad input, naming the field, and start nothing', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let worker: PipelineWorkers;
  let workerRun: Promise<void>;
  let app: FastifyInstance;
  let base: string;
  let files: Files;
  let baseEnv: Record<string, string>;
  const taskQueue = uniqueName('bad-input');
  /** Workflow ids the rows would have started, by row. */
  const wouldStart = new Map<string, string>();
  const cliOutcomes = new Map<string, CliOutcome>();
  const controls: string[] = [];
  let cliControl: Promise<CliOutcome>;

  beforeAll(async () => {
    requireCompiledCli();
    env = await createDevServerEnv();
    files = await writeFiles();
    sim = await startSimulator({
      basePath: uniqueBasePath('bad-input'),
      progression: { mode: 'wall', trainingMs: 300, generationMs: 200 },
      avatarsPerOrder: 2,
    });
    // Both workers, as `avatar-pipeline worker` runs them: the CLI's control run sends its provider
    // calls to the provider queue.
    worker = await PipelineWorkers.create({
      connection: env.nativeConnection,
      config: testConfig({
        namespace: env.namespace,
        taskQueue,
        providerUrl: sim.url,
        imageRoots: [files.allowed],
      }),
    });
    workerRun = worker.run();
    const { address, namespace } = devServerUnderTest();
    const config = testConfig({ taskQueue, providerUrl: sim.url, imageRoots: [files.allowed] });
    const apiConfig: AppConfig = {
      ...config,
      temporal: { ...config.temporal, address, namespace },
      imageAccess: { roots: [files.allowed], urlHosts: ['images.example.test', 'localhost'] },
      api: {
        ...config.api,
        tokens: [TOKEN],
        blobDir: path.join(files.allowed, 'blobs'),
        maxFileBytes: API_MAX_FILE_BYTES,
      },
      callbacks: { signingSecret: `matrix-secret-${randomUUID()}`, privateHosts: [] },
    };
    ({ app, base } = await startTestApi({ config: apiConfig, client: env.client }));
    baseEnv = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PROVIDER_TASK_QUEUE: config.placement.providerTaskQueue,
      PROVIDER_BASE_URL: sim.url,
      PROVIDER_API_KEY: 'sim-key',
      IMAGE_ROOTS: files.allowed,
      BLOB_DIR: path.join(path.dirname(files.allowed), 'blobs'),
      API_TOKENS: TOKEN,
      LOG_FORMAT: 'text',
    };
    expect(await listWorkflowIds(`TaskQueue = "${taskQueue}"`)).toEqual([]);

    // The CLI control (a good run, waited for) goes alongside the rows, which run up front, a few at
    // a time (each is a process start); the tests check them.
    const controlId = uniqueName('control-cli');
    controls.push(`default.avatar-pipeline-${controlId}`);
    cliControl = runCli(['run', ...run(files, []).slice(1), '--request-id', controlId, '--json'], baseEnv, {
      timeoutMs: 60_000,
    });
    const pending = [...CLI_ROWS];
    const runRow = async (row: CliRow): Promise<void> => {
      const id = uniqueName(`bad-${slug(row.name)}`);
      let args = row.args(files);
      if (args[0] === 'run') args = [...args, '--request-id', id, '--json'];
      if (args[0] === 'campaign') args = [...args, '--campaign-id', id, '--json'];
      const workflowId = args[0] === 'run' ? `default.avatar-pipeline-${id}` : `default.${id}`;
      wouldStart.set(`cli:${row.name}`, workflowId);
      const rowEnv: Record<string, string> = { ...baseEnv };
      for (const [name, value] of Object.entries(row.env ?? {})) {
        if (value === undefined) delete rowEnv[name];
        else rowEnv[name] = value;
      }
      cliOutcomes.set(row.name, await runCli(args, rowEnv, { timeoutMs: 30_000 }));
    };
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let row = pending.shift(); row; row = pending.shift()) await runRow(row);
      }),
    );
  });

  afterAll(async () => {
    await app?.close();
    if (worker) {
      worker.shutdown();
      await workerRun;
    }
    await sim?.stop();
    await env?.teardown();
  });

  async function call(request: ApiRequest, idempotencyKey: string) {
    const headers: Record<string, string> = { 'idempotency-key': idempotencyKey, ...request.headers };
    if (request.token !== null) headers.authorization = `Bearer ${request.token ?? TOKEN}`;
    let body: FormData | string | undefined;
    if (request.form) body = request.form;
    else if (request.body !== undefined) {
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${base}/v1/pipelines`, {
      method: 'POST',
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: JSON.parse(text) as { error: string; issues: { path: string; message: string }[] },
    };
  }

  async function expectNotStarted(workflowId: string): Promise<void> {
    await expect(env.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  }

  test('there are at least 20 kinds of bad input, through both surfaces', () => {
    expect(API_ROWS.length + CLI_ROWS.length).toBeGreaterThanOrEqual(40);
    expect(CLI_ROWS.length).toBeGreaterThanOrEqual(20);
    expect(API_ROWS.length).toBeGreaterThanOrEqual(20);
  });

  test.each(API_ROWS.map((row) => [row.name, row] as const))('api: %s', async (name, row) => {
    const key = uniqueName(`bad-${slug(name)}`);
    const workflowId = `default.avatar-pipeline-${key}`;
    wouldStart.set(`api:${name}`, workflowId);
    const answer = await call(await row.request(files), key);
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: row.status,
      body: { error: expect.any(String), issues: expect.any(Array) },
    });
    if (row.field === undefined) {
      expect(answer.body.error).toMatch(row.message);
    } else {
      expect(answer.body.issues).toContainEqual({
        path: row.field,
        message: expect.stringMatching(row.message),
      });
    }
    await expectNotStarted(workflowId);
  });

  test.each(CLI_ROWS.map((row) => [row.name, row] as const))('cli: %s', async (name, row) => {
    const outcome = cliOutcomes.get(name)!;
    expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({
      code: row.exit,
      stderr: expect.stringMatching(row.message),
    });
    expect(outcome.stdout).toBe('');
    await expectNotStarted(wouldStart.get(`cli:${name}`)!);
  });

  test('controls: a good request through each surface starts a run, which the listing sees', async () => {
    const key = uniqueName('control-api');
    const started = await call(
      { body: { images: files.selfies, styles: [3], gender: 1, polling: FAST_POLLING } },
      key,
    );
    expect(started.status).toBe(202);
    controls.push(`default.avatar-pipeline-${key}`);
    await env.client.workflow.getHandle(`default.avatar-pipeline-${key}`).result();

    const ran = await cliControl;
    expect(ran.stderr).not.toMatch(/avatar-pipeline:/);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ workflowId: controls[0], status: 'DONE' });
  });

  test('afterwards the matrix task queue holds the control runs (and their children) and nothing else; the provider saw only their models', async () => {
    // Everything the controls started: the pipelines, their styles and their model claims.
    const families = async () => {
      const ids = await Promise.all(controls.map((id) => listWorkflowIds(`RootWorkflowId = '${id}'`)));
      return [...new Set([...controls, ...ids.flat()])].sort();
    };
    const query = `TaskQueue = "${taskQueue}"`;
    // Visibility lags a little behind starts: wait until the controls' families show, then a moment
    // more for any stray start to show as well.
    let expected = await families();
    let listed: string[] = [];
    const deadline = Date.now() + 5_000;
    do {
      listed = (await listWorkflowIds(query)).sort();
      if (expected.every((id) => listed.includes(id))) break;
      await new Promise((r) => setTimeout(r, 200));
      expected = await families();
    } while (Date.now() < deadline);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(expected.length).toBeGreaterThan(controls.length);
    expect((await listWorkflowIds(query)).sort()).toEqual(await families());
    expect(sim.stats().totals.modelsCreated).toBe(controls.length);
    expect(wouldStart.size).toBe(API_ROWS.length + CLI_ROWS.length);
  });
});

function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
}
