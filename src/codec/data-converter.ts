import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from '@avatar-pipeline/client/codec/aes-gcm-codec';
import type { EncryptionConfig } from '@avatar-pipeline/client/codec/encryption-keys';

/** Loaded by path (also inside the workflow sandbox): encodes failure messages and stack traces. */
export const ENCODED_FAILURE_CONVERTER_PATH =
  require.resolve('@avatar-pipeline/client/codec/encoded-failure-converter');

/**
 * The data converter of workers (clients use clientDataConverter, the same given by objects):
 * undefined (the SDK's default) without encryption; with it, every payload encrypted and failure
 * messages encoded.
 */
export function pipelineDataConverter(encryption: EncryptionConfig | undefined): DataConverter | undefined {
  if (!encryption) return undefined;
  return {
    payloadCodecs: [new AesGcmPayloadCodec(encryption)],
    failureConverterPath: ENCODED_FAILURE_CONVERTER_PATH,
  };
}
