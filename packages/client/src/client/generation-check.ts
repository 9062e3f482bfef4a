import type { ProviderClient } from '../provider/client';
import { ProviderCatalog, type ModelSummary, type ProviderOrderLookup } from './provider-catalog';
import { InputError } from '../errors';

/** What a generation asks of an existing model. */
export interface GenerationTarget {
  modelId: number;
  gender: 1 | 2;
  styles: number[];
}

/** How the caller's surface names each field (API: `modelId`, `styles.0`; CLI: `--model`, `--styles`). */
export interface GenerationFieldNames {
  modelId: string;
  gender: string;
  /** Receives the index of the style within the request. */
  style: (index: number) => string;
}

export const REQUEST_FIELD_NAMES: GenerationFieldNames = {
  modelId: 'modelId',
  gender: 'gender',
  style: (index) => `styles.${index}`,
};

const GENDER_NAMES = { 1: '1 (woman)', 2: '2 (man)' } as const;

/**
 * Asks the provider whether avatars can be generated under `modelId`: it must be a model (parent
 * 0, not a generation order), DONE, trained for the requested gender, and every style must be one
 * the provider offers. Every problem is reported at once (InputError, each issue naming
 * its field), before anything is started. Provider failures propagate: without an answer nothing
 * is started either.
 */
export async function checkGenerationTarget(
  provider: Pick<ProviderClient, 'listModels' | 'listOrders' | 'listModelOrders' | 'listStyles'>,
  target: GenerationTarget,
  fields: GenerationFieldNames = REQUEST_FIELD_NAMES,
): Promise<ModelSummary> {
  const [found, styles] = await Promise.all([
    new ProviderCatalog(provider).lookup(target.modelId, fields.modelId),
    provider.listStyles(),
  ]);
  const issues = modelIssues(found, target, fields);
  const offered = styles.map((style) => style.id);
  target.styles.forEach((style, index) => {
    if (!offered.includes(style)) {
      issues.push({
        path: fields.style(index),
        message: `style ${style} is not offered by the provider (offered: ${[...offered].sort((a, b) => a - b).join(', ')})`,
      });
    }
  });
  if (issues.length > 0 || found.kind !== 'model') throw new InputError(issues);
  return found.model;
}

/** What stops generation under the model `found`: not a model, not DONE, or of the other gender. */
export function modelIssues(
  found: ProviderOrderLookup,
  target: Pick<GenerationTarget, 'modelId' | 'gender'>,
  fields: GenerationFieldNames,
): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const { modelId } = target;
  if (found.kind === 'unknown') {
    issues.push({ path: fields.modelId, message: `the provider has no model ${modelId}` });
  } else if (found.kind === 'generation-order') {
    issues.push({
      path: fields.modelId,
      message: `order ${modelId} is a generation order under model ${found.order.modelId}, not a model`,
    });
  } else {
    const { model } = found;
    if (model.status === 'ERROR') {
      issues.push({
        path: fields.modelId,
        message: `model ${modelId} ended in ERROR${model.message ? ` (${model.message})` : ''}: train a new one`,
      });
    } else if (model.status !== 'DONE') {
      issues.push({
        path: fields.modelId,
        message: `model ${modelId} is not trained yet (status ${model.status}); generate once it is DONE`,
      });
    }
    if (model.gender !== undefined && model.gender !== target.gender) {
      issues.push({
        path: fields.gender,
        message: `model ${modelId} was trained for gender ${GENDER_NAMES[model.gender]}, not ${GENDER_NAMES[target.gender]}`,
      });
    }
  }
  return issues;
}
