import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadDecryptionError,
} from '@avatar-pipeline/client/codec/aes-gcm-codec';
import { parseEncryptionKeys } from '@avatar-pipeline/client/codec/encryption-keys';
import { bytesToPayload, payloadToBytes } from '@avatar-pipeline/client/codec/payload-bytes';
import {
  subjectSearchQuery,
  subjectSearchToken,
  subjectSearchTokens,
} from '@avatar-pipeline/client/codec/subject-token';

const key = (): Buffer => randomBytes(32);
const text = (bytes: Uint8Array | null | undefined): string => Buffer.from(bytes ?? []).toString('utf8');
const toPayload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);

describe('payload bytes', () => {
  it('round-trips metadata and data, empty or not', () => {
    for (const payload of [
      toPayload({ selfie: '/data/alice/1.png' }),
      toPayload(undefined),
      {
        metadata: { encoding: new Uint8Array(Buffer.from('binary/plain')), odd: new Uint8Array() },
        data: new Uint8Array([0, 255, 7]),
      },
      // A workflow's void update answer arrives with a plain array as its data.
      {
        metadata: { encoding: new Uint8Array(Buffer.from('binary/null')) },
        data: [] as unknown as Uint8Array,
      },
      {
        metadata: { encoding: new Uint8Array(Buffer.from('binary/x')) },
        data: [1, 2] as unknown as Uint8Array,
      },
    ]) {
      const back = bytesToPayload(payloadToBytes(payload));
      expect(Object.keys(back.metadata ?? {}).sort()).toEqual(Object.keys(payload.metadata ?? {}).sort());
      for (const [k, v] of Object.entries(payload.metadata ?? {}))
        expect(Buffer.from(back.metadata![k]!)).toEqual(Buffer.from(v!));
      expect(Buffer.from(back.data ?? [])).toEqual(Buffer.from(payload.data ?? []));
    }
  });

  it('refuses a truncated or unknown layout', () => {
    const bytes = payloadToBytes(toPayload('x'));
    expect(() => bytesToPayload(bytes.subarray(0, 5))).toThrow('truncated');
    expect(() => bytesToPayload(Buffer.from([9, 0, 0]))).toThrow('version 9');
  });
});

describe('AES-256-GCM payload codec', () => {
  const k1 = key();
  const k2 = key();

  it('encrypts with the current key id in the metadata and decrypts back', async () => {
    const codec = new AesGcmPayloadCodec({ currentKeyId: 'k1', keys: [{ id: 'k1', key: k1 }] });
    const original = toPayload({ subjectId: 'alice', images: ['/data/alice/1.png'] });
    const [encrypted] = await codec.encode([original]);
    expect(text(encrypted!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encrypted!.metadata![KEY_ID_METADATA])).toBe('k1');
    expect(Buffer.from(encrypted!.data!).toString('latin1')).not.toContain('alice');
    const [decoded] = await codec.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({
      subjectId: 'alice',
      images: ['/data/alice/1.png'],
    });
  });

  it('uses a fresh IV each time', async () => {
    const codec = new AesGcmPayloadCodec({ currentKeyId: 'k1', keys: [{ id: 'k1', key: k1 }] });
    const [a, b] = await codec.encode([toPayload('same'), toPayload('same')]);
    expect(Buffer.from(a!.data!)).not.toEqual(Buffer.from(b!.data!));
  });

  it('after rotation, decrypts payloads of the old key and encrypts with the new one', async () => {
    const before = new AesGcmPayloadCodec({ currentKeyId: 'k1', keys: [{ id: 'k1', key: k1 }] });
    const after = new AesGcmPayloadCodec({
      currentKeyId: 'k2',
      keys: [
        { id: 'k1', key: k1 },
        { id: 'k2', key: k2 },
      ],
    });
    const [old] = await before.encode([toPayload('old run')]);
    const [fresh] = await after.encode([toPayload('new run')]);
    expect(text(fresh!.metadata![KEY_ID_METADATA])).toBe('k2');
    const decoded = await after.decode([old!, fresh!]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual(['old run', 'new run']);
    // Dropping a key that payloads still use makes them unreadable, and says which key is missing.
    const onlyNew = new AesGcmPayloadCodec({ currentKeyId: 'k2', keys: [{ id: 'k2', key: k2 }] });
    await expect(onlyNew.decode([old!])).rejects.toThrow('key "k1", which is not configured');
  });

  it('passes unencrypted payloads through decode (runs started before encryption was on)', async () => {
    const codec = new AesGcmPayloadCodec({ currentKeyId: 'k1', keys: [{ id: 'k1', key: k1 }] });
    const plain = toPayload({ a: 1 });
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it('refuses altered ciphertext and a wrong key under the same id', async () => {
    const codec = new AesGcmPayloadCodec({ currentKeyId: 'k1', keys: [{ id: 'k1', key: k1 }] });
    const [encrypted] = await codec.encode([toPayload('secret')]);
    const tampered = { ...encrypted!, data: new Uint8Array(encrypted!.data!) };
    tampered.data[20] = tampered.data[20]! ^ 1;
    await expect(codec.decode([tampered])).rejects.toBeInstanceOf(PayloadDecryptionError);
    const impostor = new AesGcmPayloadCodec({ currentKeyId: 'k1', keys: [{ id: 'k1', key: k2 }] });
    await expect(impostor.decode([encrypted!])).rejects.toThrow('failed authentication');
  });

  it('needs its current key among its keys', () => {
    expect(() => new AesGcmPayloadCodec({ currentKeyId: 'k9', keys: [{ id: 'k1', key: k1 }] })).toThrow(
      '"k9"',
    );
  });
});

describe('subject search tokens', () => {
  const config = {
    currentKeyId: 'k2',
    keys: [
      { id: 'k1', key: key() },
      { id: 'k2', key: key() },
    ],
  };

  it('are stable per subject and key, differ between subjects, and never contain the subject', () => {
    const token = subjectSearchToken(config, 'alice@example.com');
    expect(token).toMatch(/^k2\.[A-Za-z0-9_-]{22}$/);
    expect(subjectSearchToken(config, 'alice@example.com')).toBe(token);
    expect(subjectSearchToken(config, 'bob@example.com')).not.toBe(token);
    expect(token).not.toContain('alice');
  });

  it('are listed under every key, so runs from before a rotation are found too', () => {
    const tokens = subjectSearchTokens(config, 'alice');
    expect(tokens.map((t) => t.split('.')[0])).toEqual(['k1', 'k2']);
    expect(tokens[1]).toBe(subjectSearchToken(config, 'alice'));
  });
});

describe('ENCRYPTION_KEYS parsing', () => {
  const b64 = key().toString('base64');

  it('reads id:base64 pairs', () => {
    const parsed = parseEncryptionKeys(` a:${b64} , b.2:${key().toString('base64')}`);
    expect(parsed.ok && parsed.keys.map((k) => [k.id, k.key.length])).toEqual([
      ['a', 32],
      ['b.2', 32],
    ]);
  });

  it.each([
    ['', 'at least one key'],
    [b64, 'id:base64key'],
    [`a:${b64},a:${b64}`, 'appears twice'],
    [`-a:${b64}`, 'key id must be'],
    ['a:not base64!', 'not base64'],
    [`a:${randomBytes(16).toString('base64')}`, 'must be 32 bytes'],
  ])('refuses %j (%s) without quoting key material', (value, reason) => {
    const parsed = parseEncryptionKeys(value);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.reason).toContain(reason);
      expect(parsed.reason).not.toContain(b64);
    }
  });
});

describe('subject search queries', () => {
  it('name the plain id without encryption, and every key token with it', () => {
    expect(subjectSearchQuery(undefined, 'u1')).toBe("SubjectId = 'u1'");
    expect(() => subjectSearchQuery(undefined, "o'brien")).toThrow('quotes');
    const one = { currentKeyId: 'k1', keys: [{ id: 'k1', key: key() }] };
    expect(subjectSearchQuery(one, 'u1')).toBe(`SubjectId = '${subjectSearchToken(one, 'u1')}'`);
    const two = { currentKeyId: 'k2', keys: [...one.keys, { id: 'k2', key: key() }] };
    expect(subjectSearchQuery(two, "o'brien")).toBe(
      `SubjectId IN (${subjectSearchTokens(two, "o'brien")
        .map((t) => `'${t}'`)
        .join(', ')})`,
    );
  });
});
