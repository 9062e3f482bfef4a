import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { bytesToPayload, payloadToBytes } from './payload-bytes';
import type { EncryptionConfig } from './encryption-keys';
import { subjectSearchToken, subjectSearchTokens } from './subject-token';
import { AvatarPipelineError } from '../errors';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));
const text = (bytes: Uint8Array | null | undefined): string | undefined =>
  bytes == null ? undefined : Buffer.from(bytes).toString('utf8');

/** Thrown when a payload cannot be decrypted: unknown key id, or data that fails authentication. */
export class PayloadDecryptionError extends AvatarPipelineError {}

/**
 * AES-256-GCM over the whole payload (metadata and data). The key id travels in the payload's
 * metadata, so after a rotation payloads written under an older key still decrypt as long as that
 * key stays configured. Payloads that are not encrypted pass through decode unchanged.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keys: ReadonlyMap<string, Buffer>;
  readonly currentKeyId: string;

  constructor(private readonly config: EncryptionConfig) {
    this.keys = new Map(config.keys.map((k) => [k.id, k.key]));
    if (!this.keys.has(config.currentKeyId)) {
      throw new Error(`Encryption key "${config.currentKeyId}" is not among the configured keys`);
    }
    this.currentKeyId = config.currentKeyId;
  }

  /** Ids of every key this codec can decrypt with. */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** SubjectId's value for this subject: a keyed hash under the current key (see subjectSearchToken). */
  subjectToken(subjectId: string): string {
    return subjectSearchToken(this.config, subjectId);
  }

  /** The subject's SubjectId value under every configured key: runs started before a rotation hold older ones. */
  subjectTokens(subjectId: string): string[] {
    return subjectSearchTokens(this.config, subjectId);
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys.get(this.currentKeyId)!;
    return Promise.resolve(
      payloads.map((payload) => {
        const iv = randomBytes(IV_BYTES);
        const cipher = createCipheriv(CIPHER, key, iv);
        const sealed = Buffer.concat([cipher.update(payloadToBytes(payload)), cipher.final()]);
        return {
          metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(this.currentKeyId) },
          data: new Uint8Array(Buffer.concat([iv, sealed, cipher.getAuthTag()])),
        };
      }),
    );
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    try {
      return Promise.resolve(payloads.map((payload) => this.decodeOne(payload)));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private decodeOne(payload: Payload): Payload {
    if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
    const keyId = text(payload.metadata?.[KEY_ID_METADATA]);
    const key = keyId === undefined ? undefined : this.keys.get(keyId);
    if (!key) {
      throw new PayloadDecryptionError(
        `Payload was encrypted with key "${keyId ?? '(none)'}", which is not configured (known: ${this.keyIds.join(', ')})`,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new PayloadDecryptionError('Encrypted payload is truncated');
    const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new PayloadDecryptionError(
        `Payload under key "${keyId}" failed authentication (altered or wrong key)`,
      );
    }
    return bytesToPayload(plain);
  }
}
