import { InvalidArgumentError, type Command } from 'commander';
import {
  createProviderCatalog,
  type ModelSummary,
  type OrderSummary,
} from '@avatar-pipeline/client/client/provider-catalog';
import { reportError } from '../fail';
import { printableJson, writeLines } from '../printable';

const EXIT_CODES_HELP =
  '\nAsks the provider at PROVIDER_BASE_URL with PROVIDER_API_KEY (default: the local simulator).\nExit codes: 0 listed, 1 provider unreachable or failing, 2 bad input or configuration.';

/** `models` and `orders`: what the provider holds for this account, read from the provider itself. */
export function registerProviderRecordCommands(program: Command): void {
  program
    .command('models')
    .description("List the provider's models (trained or training), newest first")
    .option('--json', 'print one JSON array of {modelId, status, gender, styles, createdAt, message}')
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (options: { json?: boolean }) => {
      try {
        const models = await createProviderCatalog().listModels();
        if (options.json) printJson(models);
        else if (models.length === 0) writeLines(process.stderr, 'no models');
        else for (const model of models) writeLines(process.stdout, describeModel(model));
      } catch (err) {
        reportError(err);
      }
    });

  program
    .command('orders')
    .description(
      "List the provider's orders, newest first; with --model, the generation orders under one model",
    )
    .option('--model <id>', 'only the generation orders under this model', parseId)
    .option(
      '--json',
      'print one JSON array of {orderId, modelId, status, gender, styles, createdAt, message}',
    )
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (options: { model?: number; json?: boolean }) => {
      try {
        const catalog = createProviderCatalog();
        const orders =
          options.model === undefined
            ? await catalog.listOrders()
            : (await catalog.getModel(options.model, '--model')).orders;
        if (options.json) printJson(orders);
        else if (orders.length === 0) writeLines(process.stderr, 'no orders');
        else for (const order of orders) writeLines(process.stdout, describeOrder(order));
      } catch (err) {
        reportError(err);
      }
    });
}

function parseId(value: string): number {
  const id = Number(value);
  if (!/^\d+$/.test(value.trim()) || id < 1 || !Number.isSafeInteger(id)) {
    throw new InvalidArgumentError('must be a positive integer (a model id from `avatar-pipeline models`)');
  }
  return id;
}

function printJson(value: unknown): void {
  process.stdout.write(printableJson(value));
}

function describeModel(model: ModelSummary): string {
  return [
    `model ${String(model.modelId).padStart(6)}`,
    model.status.padEnd(11),
    model.gender === undefined ? '' : `gender ${model.gender}`,
    model.styles ? `styles ${model.styles.join(',')}` : '',
    model.message ?? '',
  ]
    .filter((part) => part !== '')
    .join('  ');
}

function describeOrder(order: OrderSummary): string {
  const kind = order.modelId === 0 ? 'model' : `under model ${order.modelId}`;
  return [
    `order ${String(order.orderId).padStart(6)}`,
    order.status.padEnd(11),
    kind,
    order.styles ? `styles ${order.styles.join(',')}` : '',
    order.message ?? '',
  ]
    .filter((part) => part !== '')
    .join('  ');
}
