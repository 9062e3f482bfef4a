import { createHmac } from 'node:crypto';
import { signCallback, verifyCallbackSignature } from '../../../src/callbacks/signature';

const SECRET = 'whsec-0123456789abcdef';
const BODY = JSON.stringify({ type: 'pipeline.completed', workflowId: 'avatar-pipeline-1', note: 'Zoë ✓' });
const T = 1_700_000_000;
const NOW = T * 1000;

describe('callback signatures', () => {
  it('signs t.body with HMAC-SHA256 as documented', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(signCallback(BODY, SECRET, T)).toBe(`t=${T},v1=${expected}`);
    // Bytes and the same text sign alike.
    expect(signCallback(Buffer.from(BODY, 'utf8'), SECRET, T)).toBe(signCallback(BODY, SECRET, T));
  });

  it('verifies its own signature over the raw body', () => {
    expect(verifyCallbackSignature(signCallback(BODY, SECRET, T), BODY, SECRET, { now: NOW })).toBe(true);
    expect(
      verifyCallbackSignature(signCallback(BODY, SECRET, T), Buffer.from(BODY), SECRET, { now: NOW }),
    ).toBe(true);
  });

  it('refuses a changed body, another secret, or a re-timed header', () => {
    const header = signCallback(BODY, SECRET, T);
    expect(verifyCallbackSignature(header, BODY.replace('1', '2'), SECRET, { now: NOW })).toBe(false);
    expect(verifyCallbackSignature(header, `${BODY} `, SECRET, { now: NOW })).toBe(false);
    expect(verifyCallbackSignature(header, BODY, `${SECRET}x`, { now: NOW })).toBe(false);
    const retimed = header.replace(`t=${T}`, `t=${T + 1}`);
    expect(verifyCallbackSignature(retimed, BODY, SECRET, { now: NOW })).toBe(false);
  });

  it('refuses signatures outside the tolerance, in both directions', () => {
    const header = signCallback(BODY, SECRET, T);
    expect(verifyCallbackSignature(header, BODY, SECRET, { now: NOW + 300_000 })).toBe(true);
    expect(verifyCallbackSignature(header, BODY, SECRET, { now: NOW + 301_000 })).toBe(false);
    expect(verifyCallbackSignature(header, BODY, SECRET, { now: NOW - 301_000 })).toBe(false);
    expect(
      verifyCallbackSignature(header, BODY, SECRET, { now: NOW + 3_600_000, toleranceSeconds: 3_600 }),
    ).toBe(true);
  });

  it('accepts any of several v1 signatures (secret rotation)', () => {
    const old = signCallback(BODY, 'old-secret-0123456789', T).split(',')[1];
    const current = signCallback(BODY, SECRET, T).split(',')[1];
    expect(verifyCallbackSignature(`t=${T},${old},${current}`, BODY, SECRET, { now: NOW })).toBe(true);
    expect(verifyCallbackSignature(`t=${T},${old}`, BODY, SECRET, { now: NOW })).toBe(false);
  });

  it.each([
    [undefined],
    [''],
    ['v1=abc'],
    [`t=${T}`],
    [`t=soon,v1=${'0'.repeat(64)}`],
    [`t=${T},v1=${'z'.repeat(64)}`],
    [`t=${T},v1=${'0'.repeat(63)}`],
    [`t=${T},v0=${'0'.repeat(64)}`],
  ])('refuses the malformed header %j', (header) => {
    expect(verifyCallbackSignature(header, BODY, SECRET, { now: NOW })).toBe(false);
  });
});
