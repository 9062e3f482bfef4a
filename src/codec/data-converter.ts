import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec';
import type { EncryptionConfig } from './encryption-keys';

/** Loaded by path (also inside the workflow sandbox): encodes failure messages and stack traces. */
export const ENCODED_FAILURE_CONVERTER_PATH = require.resolve('./encoded-failure-converter');

/**
 * The data converter for client, worker and API alike: undefined (the SDK's default) without
 * encryption; with it, every payload encrypted and failure messages encoded.
 */
export function pipelineDataConverter(encryption: EncryptionConfig | undefined): DataConverter | undefined {
  if (!encryption) return undefined;
  return {
    payloadCodecs: [new AesGcmPayloadCodec(encryption)],
    failureConverterPath: ENCODED_FAILURE_CONVERTER_PATH,
  };
}

/** The encryption codec a client or worker was built with, if any (to tell whether to hash subject ids). */
export function encryptionCodecOf(
  dataConverter: { payloadCodecs?: readonly unknown[] } | undefined,
): AesGcmPayloadCodec | undefined {
  return dataConverter?.payloadCodecs?.find(
    (codec): codec is AesGcmPayloadCodec => codec instanceof AesGcmPayloadCodec,
  );
}
