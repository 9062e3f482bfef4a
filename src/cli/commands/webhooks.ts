import { InvalidArgumentError, type Command } from 'commander';
import { createPipelineClient } from '@avatar-pipeline/client/client/pipeline-client';
import { loadConfig, type AppConfig } from '../../config/load-config';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@avatar-pipeline/client/contracts/webhook-events';
import { openBlobStore } from '../../storage';
import type { ListedAttempt } from '@avatar-pipeline/client/webhooks/delivery-log';
import { WebhookRegistry, type EndpointView } from '../../webhooks/webhook-registry';
import { reportError } from '../fail';
import { printable, printableJson, writeLines } from '../printable';
import { InputError } from '@avatar-pipeline/client/errors';

const DEFAULT_TENANT = 'default';

interface TenantFlag {
  tenant: string;
  json?: boolean;
}

/**
 * `avatar-pipeline webhooks list|add|remove|deliveries|redeliver`: the operator's view of a
 * tenant's registered endpoints (the same store and rules as /v1/webhooks).
 */
export function registerWebhooksCommand(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('Registered webhook endpoints, their delivery log and redelivery')
    .addHelpText('after', '\nExit codes: 0 done, 2 bad input or configuration, 1 failure.');
  const tenantOption = (command: Command) =>
    command
      .option('--tenant <id>', 'whose endpoints', DEFAULT_TENANT)
      .option('--json', 'print one JSON document');

  tenantOption(webhooks.command('list').description('List the endpoints')).action((flags: TenantFlag) =>
    withRegistry(async (registry) => {
      const endpoints = await registry.list(flags.tenant);
      if (flags.json) process.stdout.write(printableJson(endpoints));
      else if (endpoints.length === 0) writeLines(process.stderr, 'no webhook endpoints');
      else for (const e of endpoints) writeLines(process.stdout, endpointLine(e));
    }),
  );

  tenantOption(
    webhooks
      .command('add')
      .description('Register an endpoint; prints its whsec_ secret (shown this once)')
      .requiredOption('--url <url>', 'where events are POSTed')
      .option('--events <list>', 'comma separated events (names, <group>.* or *)', '*')
      .option('--description <text>', 'what it is for'),
  ).action((flags: TenantFlag & { url: string; events: string; description?: string }) =>
    withRegistry(async (registry) => {
      const created = await registry.add(flags.tenant, {
        url: flags.url,
        events: flags.events.split(',').map((e) => e.trim()),
        ...(flags.description !== undefined ? { description: flags.description } : {}),
      });
      if (flags.json) process.stdout.write(printableJson(created));
      else writeLines(process.stdout, `${endpointLine(created)}\nsecret ${created.secret}`);
    }),
  );

  tenantOption(webhooks.command('remove').description('Remove an endpoint').argument('<id>')).action(
    (id: string, flags: TenantFlag) =>
      withRegistry(async (registry) => {
        if (!(await registry.remove(flags.tenant, id)))
          throw InputError.field('id', 'is not an endpoint of this tenant');
        if (flags.json) process.stdout.write(printableJson({ removed: id }));
        else writeLines(process.stdout, `removed ${id}`);
      }),
  );

  tenantOption(
    webhooks
      .command('deliveries')
      .description("List an endpoint's delivery attempts, newest first")
      .argument('<id>')
      .option('--run <workflowId>', "only this run's (or campaign's) events")
      .option('--event <type>', `only this event (${WEBHOOK_EVENT_TYPES.join(', ')})`, parseEvent)
      .option('--failed', 'only failed attempts')
      .option('--limit <n>', 'at most this many (1-1000)', parseLimit, 100),
  ).action(
    (
      id: string,
      flags: TenantFlag & { run?: string; event?: WebhookEventType; failed?: boolean; limit: number },
    ) =>
      withRegistry(async (registry) => {
        const attempts = await registry.deliveries(flags.tenant, id, {
          ...(flags.run !== undefined ? { run: flags.run } : {}),
          ...(flags.event !== undefined ? { event: flags.event } : {}),
          ...(flags.failed ? { failed: true } : {}),
          limit: flags.limit,
        });
        if (!attempts) throw InputError.field('id', 'is not an endpoint of this tenant');
        if (flags.json) process.stdout.write(printableJson(attempts));
        else for (const a of attempts) writeLines(process.stdout, attemptLine(a));
      }),
  );

  tenantOption(
    webhooks
      .command('redeliver')
      .description('Send a logged delivery again, with its webhook-id')
      .argument('<id>')
      .argument('<deliveryId>'),
  ).action((id: string, deliveryId: string, flags: TenantFlag) =>
    withRegistry(async (registry, config) => {
      const pipelines = await createPipelineClient();
      try {
        const started = await registry.redeliver(
          pipelines.temporal,
          config.placement.taskQueue,
          flags.tenant,
          id,
          deliveryId,
        );
        if (!started) throw InputError.field('deliveryId', 'is not in the delivery log of this endpoint');
        if (flags.json) process.stdout.write(printableJson(started));
        else writeLines(process.stdout, `redelivering ${started.webhookId} (${started.workflowId})`);
      } finally {
        await pipelines.close();
      }
    }),
  );
}

async function withRegistry(
  body: (registry: WebhookRegistry, config: AppConfig) => Promise<void>,
): Promise<void> {
  try {
    const config = loadConfig();
    const store = openBlobStore(config.storage!);
    try {
      await body(
        new WebhookRegistry({
          store,
          webhookKey: config.callbacks.webhookKey,
          privateHosts: config.callbacks.privateHosts,
          ...(config.callbacks.logRetentionDays !== undefined
            ? { logRetentionDays: config.callbacks.logRetentionDays }
            : {}),
        }),
        config,
      );
    } finally {
      store.close();
    }
  } catch (err) {
    reportError(err);
  }
}

function parseEvent(value: string): WebhookEventType {
  if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  }
  return value as WebhookEventType;
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value.trim()) || limit < 1 || limit > 1000) {
    throw new InvalidArgumentError('must be a whole number from 1 to 1000');
  }
  return limit;
}

function endpointLine(e: EndpointView): string {
  const description = e.description ? `  ${printable(e.description)}` : '';
  return `${e.id}  ${e.state.padEnd(8)}  ${printable(e.url)}  [${e.events.map(printable).join(', ')}]${description}`;
}

function attemptLine(a: ListedAttempt): string {
  const outcome = a.statusCode !== undefined ? `HTTP ${a.statusCode}` : (a.error ?? 'no answer');
  return `${a.at}  ${a.ok ? 'ok    ' : 'failed'}  ${a.event} #${a.sequence}  attempt ${a.attempt}${a.redelivery ? ' (redelivery)' : ''}  ${printable(outcome)}  ${a.latencyMs} ms  ${a.deliveryId}  run ${printable(a.run)}`;
}
