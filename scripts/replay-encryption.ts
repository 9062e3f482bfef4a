import type { EncryptionConfig } from '@avatar-pipeline/client/codec/encryption-keys';

/**
 * The key of the encrypted histories in test/histories (`*-campaign-encrypted--*`): a throwaway
 * key for synthetic data, committed so that replay can decode what it encrypted. Never a real key.
 */
export const REPLAY_ENCRYPTION: EncryptionConfig = {
  currentKeyId: 'replay-k1',
  keys: [{ id: 'replay-k1', key: Buffer.from('cmVwbGF5LW9ubHktdGhyb3dhd2F5LWtleS0zMi1ieXQ=', 'base64') }],
};
