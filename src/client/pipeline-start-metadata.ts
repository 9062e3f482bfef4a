import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { encryptionCodecOf } from '../codec/data-converter';
import type { PipelineInput } from '../contracts/pipeline-input';
import { pipelineStartAttributes } from '../contracts/search-attributes';
import { formatDuration } from '../contracts/format-duration';

export interface PipelineStartMetadata {
  typedSearchAttributes: TypedSearchAttributes;
  staticSummary: string;
  staticDetails: string;
}

/**
 * What the Temporal UI shows for a pipeline from its start, and what operators filter by.
 * SubjectId gets the subject id as is, or, when the client encrypts payloads, a keyed hash of it:
 * search attributes are not payloads and stay plaintext on the server. Summary and details are
 * payloads (encrypted along with the rest when encryption is on).
 */
export function pipelineStartMetadata(client: Client, input: PipelineInput): PipelineStartMetadata {
  const codec = encryptionCodecOf(client.options.loadedDataConverter);
  const subjectKey = input.subjectId && (codec ? codec.subjectToken(input.subjectId) : input.subjectId);
  const who = input.subjectId ?? 'one person';
  const details = [
    `**Subject:** ${input.subjectId ?? '(none given)'}`,
    ...(input.campaignId ? [`**Campaign:** ${input.campaignId}`] : []),
    `**Selfies:** ${input.images.length} (main image: number ${input.mainImageIndex + 1})`,
    `**Styles:** ${input.styles.join(', ')}`,
    `**Gender:** ${input.gender}`,
    `**Deadlines:** training ${formatDuration(input.trainingDeadlineMs)}, each style ${formatDuration(input.generationDeadlineMs)}`,
    `**Polling:** first after ${formatDuration(input.polling.initialIntervalMs)}, between ${formatDuration(input.polling.minIntervalMs)} and ${formatDuration(input.polling.maxIntervalMs)}`,
  ];
  return {
    typedSearchAttributes: pipelineStartAttributes({
      ...(subjectKey ? { subjectKey } : {}),
      ...(input.campaignId ? { campaignId: input.campaignId } : {}),
    }),
    staticSummary: `Avatars for ${who}: ${input.images.length} selfies, styles ${input.styles.join(', ')}`,
    staticDetails: details.join('\n'),
  };
}

/** The namespace lacks the pipeline's search attributes: `avatar-pipeline setup` fixes it (the API answers 503). */
export class NamespaceNotSetUpError extends Error {
  constructor(namespace: string, details: string | undefined, options: { cause: unknown }) {
    super(
      `Temporal namespace "${namespace}" lacks the pipeline's search attributes (${details}): run \`avatar-pipeline setup\` once against it`,
      options,
    );
    this.name = 'NamespaceNotSetUpError';
  }
}

/**
 * A namespace without the pipeline's search attributes refuses the start; say how to fix it.
 * Returns undefined for any other error.
 */
export function missingSearchAttributesError(
  client: Client,
  err: unknown,
): NamespaceNotSetUpError | undefined {
  const cause = err instanceof Error && isGrpcServiceError(err.cause) ? err.cause : err;
  if (
    !isGrpcServiceError(cause) ||
    !/search attribute .* is not defined|no mapping defined for search attribute/i.test(cause.details ?? '')
  ) {
    return undefined;
  }
  return new NamespaceNotSetUpError(client.options.namespace, cause.details, { cause: err });
}
