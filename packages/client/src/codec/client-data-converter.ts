import { defaultPayloadConverter, type LoadedDataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec';
import { failureConverter } from './encoded-failure-converter';
import type { EncryptionConfig } from './encryption-keys';

/**
 * The data converter of clients (the client package, the API, the CLI): pipelineDataConverter's,
 * given as the converters themselves instead of module paths. Workers need paths, which the
 * workflow sandbox loads; a client needs none, and an app bundler cannot follow one. The Client
 * takes a converter already loaded as it is (its options type names only the path form).
 */
export function clientDataConverter(
  encryption: EncryptionConfig | undefined,
): LoadedDataConverter | undefined {
  if (!encryption) return undefined;
  return {
    payloadConverter: defaultPayloadConverter,
    failureConverter,
    payloadCodecs: [new AesGcmPayloadCodec(encryption)],
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
