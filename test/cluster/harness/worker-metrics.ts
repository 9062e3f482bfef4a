import { parsePrometheusText, sumOf } from '../../helpers/prometheus-text';
import type { WorkerProcess } from './cluster';

/** Activities a worker process has executed so far (its Prometheus metrics, all activity types). */
export async function activitiesExecuted(worker: WorkerProcess): Promise<number> {
  const answer = await fetch(worker.metricsUrl);
  if (!answer.ok) throw new Error(`${worker.name} metrics: HTTP ${answer.status}`);
  return sumOf(parsePrometheusText(await answer.text()), 'temporal_activity_execution_latency_count');
}
