import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { MAX_SELFIES } from '@avatar-pipeline/client/contracts/limits';
import { imageProblem } from '@avatar-pipeline/client/images/image-structure';
import { ApiError, type ApiIssue } from './api-error';
import { DEFAULT_MAX_REQUEST_BYTES } from '@avatar-pipeline/client/config/env-schema';
import type { BlobStore } from '../storage';
import { UploadBatch, type StoredSelfie } from '@avatar-pipeline/client/storage/upload-batch';
import { BatchTooLargeError, receiveFile } from './stored-uploads';

/** The file field of a multipart pipeline request. */
export const SELFIES_FIELD = 'selfies';
const MAX_FIELD_BYTES = 8 * 1024;
const MAX_FIELDS = 32;

export interface UploadedSelfie extends StoredSelfie {
  /** The client's file name, used by the `mainImage` field. */
  filename: string;
}

export interface MultipartUpload {
  fields: Map<string, string[]>;
  selfies: UploadedSelfie[];
  batch: UploadBatch;
}

/**
 * Reads a multipart request for pipeline `workflowId`: every `selfies` file is read (one at a
 * time), checked by its bytes and written to the blob store under the pipeline's uploads; fields
 * are collected as text. Refusals: more than
 * MAX_SELFIES files, a file over `maxFileBytes` or files together over `maxRequestBytes` → 413,
 * a file that is not JPEG or PNG → 415, a
 * truncated or damaged one → 422.
 * On any refusal the files already stored are removed.
 */
export async function readMultipartUpload(
  request: FastifyRequest,
  store: BlobStore,
  workflowId: string,
  maxFileBytes: number,
  maxRequestBytes: number = DEFAULT_MAX_REQUEST_BYTES,
): Promise<MultipartUpload> {
  const batch = await UploadBatch.open(store, workflowId);
  const fields = new Map<string, string[]>();
  const selfies: UploadedSelfie[] = [];
  let storedBytes = 0;
  try {
    const parts = request.parts({
      limits: {
        files: MAX_SELFIES,
        fileSize: maxFileBytes,
        fields: MAX_FIELDS,
        fieldSize: MAX_FIELD_BYTES,
        parts: MAX_SELFIES + MAX_FIELDS,
      },
    });
    for await (const part of parts as AsyncIterableIterator<Multipart>) {
      if (part.type === 'file') {
        const index = selfies.length;
        if (part.fieldname !== SELFIES_FIELD) {
          await drain(part.file);
          throw ApiError.invalid([
            { path: part.fieldname, message: `files go in the "${SELFIES_FIELD}" field` },
          ]);
        }
        const path = `${SELFIES_FIELD}.${index}`;
        const received = await receiveFile(part.file, maxRequestBytes - storedBytes).catch((err: unknown) => {
          if (!(err instanceof BatchTooLargeError)) throw err;
          throw new ApiError(
            413,
            `The selfies together are larger than the limit of ${maxRequestBytes} bytes per request`,
            [
              {
                path: SELFIES_FIELD,
                message: `must be at most ${maxRequestBytes} bytes together (API_MAX_REQUEST_BYTES)`,
              },
            ],
          );
        });
        storedBytes += received.bytes.length;
        if (received.truncated) {
          throw new ApiError(413, `A selfie is larger than the limit of ${maxFileBytes} bytes`, [
            { path, message: `is larger than ${maxFileBytes} bytes` },
          ]);
        }
        const { format } = received;
        // The file's own name beside its position: what a person recognises among their selfies.
        const named = part.filename ? `${JSON.stringify(part.filename)} ` : '';
        if (!format) {
          throw new ApiError(415, 'Selfies must be JPEG or PNG images', [
            { path, message: `${named}is not a JPEG or PNG image (${part.mimetype || 'no type'} declared)` },
          ]);
        }
        const problem = imageProblem(received.bytes);
        if (problem) throw ApiError.invalid([{ path, message: `${named}${problem}` }]);
        const stored = await batch.save(index, { ...received, format });
        selfies.push({ ...stored, filename: part.filename });
      } else {
        if (part.valueTruncated) {
          throw new ApiError(413, 'A form field is too long', [
            { path: part.fieldname, message: `is longer than ${MAX_FIELD_BYTES} bytes` },
          ]);
        }
        const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
        fields.set(part.fieldname, [...(fields.get(part.fieldname) ?? []), value]);
      }
    }
  } catch (err) {
    await batch.discard();
    throw translateLimit(err);
  }
  return { fields, selfies, batch };
}

function translateLimit(err: unknown): unknown {
  const code = (err as { code?: string }).code;
  if (code === 'FST_FILES_LIMIT') {
    const issue: ApiIssue = { path: SELFIES_FIELD, message: `must be at most ${MAX_SELFIES} files` };
    return new ApiError(413, `At most ${MAX_SELFIES} selfies per request`, [issue]);
  }
  return err;
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const chunk of stream) void chunk;
}
