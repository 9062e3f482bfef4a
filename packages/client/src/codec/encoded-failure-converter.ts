import { DefaultFailureConverter } from '@temporalio/common';

/**
 * With payload encryption on, failure messages and stack traces go into an encoded payload
 * too (they can quote selfie references or provider messages). Loaded by path in the workflow
 * sandbox, so it imports nothing but @temporalio/common.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
