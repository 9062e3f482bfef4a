import { z } from 'zod';
import { answering } from '../../../src/api/contract-schema';
import { pipelineProgressSchema, pipelineResultSchema } from '../../../src/api/response-schemas';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';

interface Contract {
  id: number;
  stage: 'a' | 'b';
  note?: string;
}

const tie = answering<Contract>();
const id = z.number();
const stage = z.enum(['a', 'b']);
const note = z.string().optional();

describe('answering: a response schema tied to its contract type', () => {
  it('takes a schema of exactly the contract’s shape', () => {
    const schema = tie(z.object({ id, stage, note }));
    expect(schema.parse({ id: 1, stage: 'a' })).toEqual({ id: 1, stage: 'a' });
  });

  it('refuses, at compile time, a schema that drops, adds, widens, narrows or retypes a field', () => {
    // Each call is a type error; `npm run typecheck` fails on an expect-error that is not one.
    // @ts-expect-error a required field missing
    tie(z.object({ stage, note }));
    // @ts-expect-error an optional field missing
    tie(z.object({ id, stage }));
    // @ts-expect-error a field the contract does not have
    tie(z.object({ id, stage, note, extra: z.string() }));
    // @ts-expect-error an optional field the contract does not have
    tie(z.object({ id, stage, note, extra: z.string().optional() }));
    // @ts-expect-error a stage the contract does not have
    tie(z.object({ id, stage: z.enum(['a', 'b', 'c']), note }));
    // @ts-expect-error a stage of the contract missing
    tie(z.object({ id, stage: z.enum(['a']), note }));
    // @ts-expect-error a field retyped
    tie(z.object({ id: z.string(), stage, note }));
    expect(typeof tie).toBe('function');
  });

  it('serializes what the workflows return, and refuses what they never report', () => {
    const result: PipelineResult = {
      workflowId: 'avatar-pipeline-1',
      modelId: 7,
      status: 'PARTIAL',
      generations: [
        { styleId: 3, status: 'DONE', avatars: [{ avatarId: 1, imageUrl: 'https://cdn.example/1.png' }] },
        { styleId: 5, status: 'ERROR', avatars: [], error: 'provider said no' },
      ],
    };
    expect(pipelineResultSchema.parse(result)).toEqual(result);
    const progress = {
      stage: 'training',
      uploads: { done: 3, total: 3 },
      training: { polls: 2 },
      styles: [{ styleId: 3, stage: 'pending' }],
    };
    expect(pipelineProgressSchema.parse(progress)).toEqual(progress);
    expect(() => pipelineProgressSchema.parse({ ...progress, stage: 'sleeping' })).toThrow();
  });
});
