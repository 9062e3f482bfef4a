import { z } from 'zod';

/** How an avatar of a style is drawn from the selfie, so that styles differ visibly. */
export const styleTreatmentSchema = z.enum([
  'pastel',
  'posterize',
  'noir',
  'invert',
  'sepia',
  'pixelate',
  'duotone',
  'hue-shift',
]);
export type StyleTreatment = z.infer<typeof styleTreatmentSchema>;

/** A catalog entry. Fields beyond id, name and treatment are passed through to clients as "further fields". */
export const styleSchema = z.looseObject({
  id: z.number().int().positive(),
  name: z.string().min(1),
  treatment: styleTreatmentSchema.optional(),
});
export type StyleEntry = z.infer<typeof styleSchema>;

export const DEFAULT_STYLES: readonly StyleEntry[] = [
  { id: 3, name: 'Watercolor', treatment: 'pastel', description: 'Soft washed-out colours', category: 'art' },
  { id: 5, name: 'Pop Art', treatment: 'posterize', description: 'Bold flat colour blocks', category: 'art' },
  {
    id: 7,
    name: 'Film Noir',
    treatment: 'noir',
    description: 'High-contrast black and white',
    category: 'cinema',
  },
  { id: 8, name: 'Cyberpunk', treatment: 'invert', description: 'Neon negative glow', category: 'sci-fi' },
  { id: 11, name: 'Vintage Photo', treatment: 'sepia', description: 'Warm sepia print', category: 'photo' },
  { id: 12, name: 'Pixel Hero', treatment: 'pixelate', description: '8-bit game sprite', category: 'games' },
  { id: 14, name: 'Comic Book', treatment: 'duotone', description: 'Two-ink comic print', category: 'art' },
  {
    id: 19,
    name: 'Fantasy Realm',
    treatment: 'hue-shift',
    description: 'Otherworldly colours',
    category: 'fantasy',
  },
];

const TREATMENTS = styleTreatmentSchema.options;

/** A style without an explicit treatment still gets a stable one, chosen from its id. */
export function treatmentOf(style: StyleEntry | undefined, styleId: number): StyleTreatment {
  return style?.treatment ?? TREATMENTS[styleId % TREATMENTS.length] ?? 'pastel';
}
