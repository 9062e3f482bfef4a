import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { Usage } from '../api-types';
import { Alert } from '../parts/alert';
import { PageHeading } from '../parts/page-heading';
import { href } from '../router';

const KIND_WORDS: Record<keyof Usage['byKind'], string> = {
  training: 'Trainings',
  generation: 'Styles generated',
  regeneration: 'Styles ordered again',
};

/** How often the page reads usage again: orders are counted as runs make them. */
const REFRESH_MS = 15_000;

/**
 * The tenant's provider work this period: what is spent, what unfinished runs hold reserved and
 * what is left of the budget, drawn as one bar, then the credits by kind and by campaign.
 */
export function UsagePage() {
  const [usage, setUsage] = useState<Usage | undefined>();
  const [error, setError] = useState('');
  useEffect(() => {
    let stopped = false;
    const read = () =>
      callApi<Usage>('GET', '/v1/usage')
        .then((answer) => {
          if (stopped) return;
          setUsage(answer);
          setError('');
        })
        .catch((err: unknown) => !stopped && setError(messageOf(err)));
    void read();
    const timer = setInterval(() => void read(), REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  return (
    <>
      <PageHeading title="Usage">Usage</PageHeading>
      <Alert>{error}</Alert>
      {usage === undefined ? !error && <p role="status">Loading usage…</p> : <UsageView usage={usage} />}
    </>
  );
}

function UsageView({ usage }: { usage: Usage }) {
  const period = usage.period === 'all' ? 'since the start' : `in ${monthName(usage.period)}`;
  const campaigns = Object.entries(usage.byCampaign).sort(([, a], [, b]) => b.credits - a.credits);
  return (
    <>
      <p>
        {usage.budget
          ? `${usage.spent} of ${usage.budget.credits} credits spent ${period}, ${usage.reserved} reserved by runs still going, ${usage.left ?? 0} left.`
          : `${usage.spent} credits spent ${period}, ${usage.reserved} reserved by runs still going. This tenant has no budget.`}
        {usage.budget?.mode === 'soft' && ' The budget is soft: starts past it are let through.'}
      </p>
      <BudgetBar usage={usage} />
      <h2>By kind</h2>
      <TallyTable
        heading="Kind"
        rows={(Object.keys(KIND_WORDS) as Array<keyof Usage['byKind']>).map((kind) => ({
          key: kind,
          name: KIND_WORDS[kind],
          tally: usage.byKind[kind],
        }))}
      />
      <h2>By campaign</h2>
      {campaigns.length === 0 ? (
        <p>No campaign work {period}.</p>
      ) : (
        <TallyTable
          heading="Campaign"
          rows={campaigns.map(([id, tally]) => ({
            key: id,
            name: (
              <a class="id" href={href(['campaigns', id])}>
                {id}
              </a>
            ),
            tally,
          }))}
        />
      )}
    </>
  );
}

/** Orders and credits, one row per kind or campaign. */
function TallyTable({
  heading,
  rows,
}: {
  heading: string;
  rows: Array<{ key: string; name: ComponentChildren; tally: { orders: number; credits: number } }>;
}) {
  return (
    <table class="cards">
      <thead>
        <tr>
          <th scope="col">{heading}</th>
          <th scope="col">Orders</th>
          <th scope="col">Credits</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            <th scope="row" data-label={heading}>
              {row.name}
            </th>
            <td data-label="Orders">{row.tally.orders}</td>
            <td data-label="Credits">{row.tally.credits}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Spent, reserved and left as parts of one bar: of the budget when there is one, else of what
 * is spent and reserved. Its words are in the paragraph above; the drawing repeats them as its label.
 */
function BudgetBar({ usage }: { usage: Usage }) {
  const whole = usage.budget?.credits ?? usage.spent + usage.reserved;
  if (whole <= 0) return null;
  const share = (credits: number) => `${Math.round(Math.min(100, (credits / whole) * 100))}%`;
  const parts = [
    { name: 'spent', credits: usage.spent },
    { name: 'reserved', credits: usage.reserved },
  ];
  const label = usage.budget
    ? `Budget: ${usage.spent} spent, ${usage.reserved} reserved, ${usage.left ?? 0} left of ${usage.budget.credits}`
    : `${usage.spent} spent, ${usage.reserved} reserved`;
  return (
    <figure class="budget-bar">
      <svg role="img" aria-label={label} viewBox="0 0 100 8" preserveAspectRatio="none">
        <rect class="whole" x="0" y="0" width="100" height="8" />
        {bars(parts, whole).map((bar) => (
          <rect key={bar.name} class={bar.name} x={bar.x} y="0" width={bar.width} height="8" />
        ))}
      </svg>
      <figcaption>
        <span class="key spent">Spent {share(usage.spent)}</span>{' '}
        <span class="key reserved">Reserved {share(usage.reserved)}</span>
        {usage.budget && <span class="key left"> Left {share(usage.left ?? 0)}</span>}
      </figcaption>
    </figure>
  );
}

/** The parts laid end to end, in percent of `whole`, none past its end. */
function bars(parts: Array<{ name: string; credits: number }>, whole: number) {
  let x = 0;
  return parts.flatMap((part) => {
    const width = Math.min(100 - x, (part.credits / whole) * 100);
    if (width <= 0) return [];
    const bar = { name: part.name, x, width };
    x += width;
    return [bar];
  });
}

function monthName(period: string): string {
  const [year, month] = period.split('-').map(Number);
  if (!year || !month) return period;
  return new Date(Date.UTC(year, month - 1, 1)).toLocaleString(undefined, {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}
