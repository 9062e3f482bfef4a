import type { Command } from 'commander';
import { readUsage } from '@avatar-pipeline/client/client/budget';
import { createPipelineClient } from '@avatar-pipeline/client/client/pipeline-client';
import { ORDER_KINDS } from '@avatar-pipeline/client/contracts/order-kinds';
import type { Usage } from '@avatar-pipeline/client/contracts/usage';
import { pricingFromEnv } from '../cli-pricing';
import { reportError } from '../fail';
import { printable, printableJson } from '../printable';
import { tenantOption } from '../tenant-flag';

export function registerUsageCommand(program: Command): void {
  program
    .command('usage')
    .description(
      "A tenant's provider work this period: credits spent and reserved, its budget and what is left",
    )
    .addOption(tenantOption('usage to show'))
    .option(
      '--json',
      'print one JSON document: {tenant, period, budget, spent, reserved, left, byKind, byCampaign}',
    )
    .action(async (flags: { tenant: string; json?: boolean }) => {
      try {
        const budget = pricingFromEnv(flags.tenant)?.budget;
        const pipelines = await createPipelineClient({ tenant: flags.tenant });
        try {
          const usage = await readUsage(pipelines.temporal, flags.tenant, budget);
          process.stdout.write(flags.json ? printableJson(usage) : usageLines(usage).join('\n') + '\n');
        } finally {
          await pipelines.close();
        }
      } catch (err) {
        reportError(err);
      }
    });
}

/** Usage as `avatar-pipeline usage` prints it. */
export function usageLines(usage: Usage): string[] {
  const { budget } = usage;
  const period = usage.period === 'all' ? 'in all' : `in ${usage.period}`;
  const head = budget
    ? `tenant ${usage.tenant} ${period}: ${usage.spent} of ${budget.credits} credits spent, ${usage.reserved} reserved, ${usage.left ?? 0} left (${budget.mode} budget)`
    : `tenant ${usage.tenant} ${period}: ${usage.spent} credits spent, ${usage.reserved} reserved (no budget)`;
  const kinds = ORDER_KINDS.map(
    (kind) =>
      `  ${kind.padEnd(13)} ${String(usage.byKind[kind].orders).padStart(6)} orders  ${usage.byKind[kind].credits} credits`,
  );
  const campaigns = Object.entries(usage.byCampaign).map(
    ([id, tally]) => `  campaign ${printable(id)}: ${tally.orders} orders, ${tally.credits} credits`,
  );
  return [head, ...kinds, ...campaigns];
}
