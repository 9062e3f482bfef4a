import { z } from 'zod';
import { genderSchema, orderIdSchema, stylesSchema } from '@avatar-pipeline/client/provider/request-schemas';
import { subjectIdSchema } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { MAX_SELFIES, MAX_STYLES } from '@avatar-pipeline/client/contracts/limits';

/** The manifest's columns (CSV header names or JSONL keys), matched without regard to case, _ or -. */
export const MANIFEST_FIELDS = ['subjectId', 'gender', 'styles', 'selfies', 'mainImage', 'modelId'] as const;
export type ManifestField = (typeof MANIFEST_FIELDS)[number];
/** Every row has these; each row also has selfies (to train on) or a modelId (to generate from), not both. */
export const REQUIRED_FIELDS: readonly ManifestField[] = ['subjectId', 'gender', 'styles'];

const canonical = new Map(MANIFEST_FIELDS.map((field) => [fieldKey(field), field]));

/** "Subject_ID", "subject-id" and "subjectId" all name subjectId; undefined for an unknown column. */
export function manifestField(name: string): ManifestField | undefined {
  return canonical.get(fieldKey(name));
}

function fieldKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
}

const GENDER_WORDS: Readonly<Record<string, number>> = {
  '1': 1,
  woman: 1,
  female: 1,
  f: 1,
  '2': 2,
  man: 2,
  male: 2,
  m: 2,
};

/** CSV cells are text: "2" and "man" mean 2; anything else is left for the schema to refuse. */
function genderFromText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return GENDER_WORDS[value.trim().toLowerCase()] ?? value;
}

/** "3;5;7" (or "3,5,7", "3 5 7") is [3, 5, 7]; a part that is not a whole number stays text and is refused. */
function stylesFromText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value
    .split(/[;,\s]+/)
    .filter((part) => part.length > 0)
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** "a.jpg;b.jpg" is a list; one entry may be a folder, a file or a URL. */
function selfiesFromText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/** "1001" is 1001; a blank cell is no model (the row trains one). */
function modelIdFromText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '') return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
}

function mainImageFromText(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '') return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
}

/**
 * A list longer than `max` is refused by its length alone, before any entry is parsed (or, for
 * selfies, any file looked at), so a row of a million entries costs no more than one of 21.
 * Anything else passes on to the list's own schema.
 */
function capped(max: number, noun: string) {
  return z.unknown().superRefine((value, ctx) => {
    if (Array.isArray(value) && value.length > max)
      ctx.addIssue({
        code: 'too_big',
        origin: 'array',
        maximum: max,
        inclusive: true,
        input: value,
        message: `must name at most ${max} ${noun}`,
      });
  });
}

/**
 * One manifest row before its selfies are looked at. Reuses the pipeline's own rules for gender
 * and styles, so a row that passes here is refused by nothing later but its files.
 */
export const manifestRowSchema = z.strictObject({
  subjectId: subjectIdSchema,
  gender: z.preprocess(genderFromText, genderSchema),
  styles: z.preprocess(stylesFromText, capped(MAX_STYLES, 'styles').pipe(stylesSchema)),
  selfies: z.preprocess(
    selfiesFromText,
    capped(MAX_SELFIES, 'selfies').pipe(
      z
        .array(z.string({ error: 'must be a path or URL' }).trim().min(1, 'must not be empty'), {
          error: 'must be a folder, or selfies separated by ";" (a list in JSONL)',
        })
        .min(1, 'must name a folder or at least one selfie'),
    ),
  ),
  /** 1-based position among the selfies, or a selfie's file name. */
  mainImage: z.preprocess(
    mainImageFromText,
    z
      .union([z.number().int().positive(), z.string().min(1)], {
        error: 'must be a position (1 = first selfie) or a selfie file name',
      })
      .optional(),
  ),
  /** An existing model at the provider (parent 0, DONE, of the row's gender): its styles are generated without training. */
  modelId: z.preprocess(
    modelIdFromText,
    z.union([orderIdSchema, z.undefined()], { error: 'must be a model id (a positive whole number)' }),
  ),
});
export type ManifestRow = z.output<typeof manifestRowSchema>;
