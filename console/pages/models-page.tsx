import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { Models, PipelineListItem } from '../api-types';
import { Alert } from '../parts/alert';
import { PageHeading } from '../parts/page-heading';
import { href } from '../router';

const GENDERS: Record<number, string> = { 1: 'Woman', 2: 'Man' };

/** Runs read to find each model's training: the newest, as many as one page of the listing holds. */
const RUNS_READ = 1000;

/**
 * Each model's training run (the run of kind pipeline or training that made it; the first when a
 * retry trained it again), from the tenant's runs: the provider's model knows neither its subject
 * nor, in most variants, when it was made.
 */
function trainingsOf(runs: PipelineListItem[]): Map<number, PipelineListItem> {
  const trainings = new Map<number, PipelineListItem>();
  for (const run of runs) {
    if (run.modelId === undefined || run.kind === 'generation') continue;
    const known = trainings.get(run.modelId);
    if (!known || Date.parse(run.startedAt) < Date.parse(known.startedAt)) trainings.set(run.modelId, run);
  }
  return trainings;
}

/** The provider's trained models; a DONE one can generate more styles without training again. */
export function ModelsPage() {
  const [models, setModels] = useState<Models['models'] | undefined>();
  const [trainings, setTrainings] = useState(new Map<number, PipelineListItem>());
  const [error, setError] = useState('');
  useEffect(() => {
    callApi<Models>('GET', '/v1/models')
      .then((answer) => setModels(answer.models))
      .catch((err: unknown) => setError(messageOf(err)));
    // Without the runs the models still show, only without their subject and training.
    callApi<{ pipelines: PipelineListItem[] }>('GET', `/v1/pipelines?limit=${RUNS_READ}`)
      .then((answer) => setTrainings(trainingsOf(answer.pipelines)))
      .catch(() => undefined);
  }, []);
  return (
    <>
      <PageHeading title="Models">Models</PageHeading>
      <Alert>{error}</Alert>
      {models === undefined ? (
        !error && <p role="status">Loading models…</p>
      ) : models.length === 0 ? (
        <p>No models yet: start a run to train one.</p>
      ) : (
        <table class="cards">
          <caption>Newest first</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Status</th>
              <th scope="col">Gender</th>
              <th scope="col">Subject</th>
              <th scope="col">Trained by</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {models.map((model) => {
              const training = trainings.get(model.modelId);
              // The provider's own time when it gives one, else when the run that trained it started.
              const created = model.createdAt ?? training?.startedAt;
              const subject = training?.subjectId;
              return (
                <tr key={model.modelId}>
                  <th scope="row" data-label="Model">
                    {model.modelId}
                  </th>
                  <td data-label="Status">{model.status}</td>
                  <td data-label="Gender">{model.gender ? GENDERS[model.gender] : ''}</td>
                  <td data-label="Subject" class="id">
                    {subject ? <a href={href(['runs'], { subject })}>{subject}</a> : ''}
                  </td>
                  <td data-label="Trained by" class="id">
                    {training ? <a href={href(['runs', training.workflowId])}>{training.workflowId}</a> : ''}
                  </td>
                  <td data-label="Created">
                    {created ? <time dateTime={created}>{new Date(created).toLocaleString()}</time> : ''}
                  </td>
                  <td data-label="">
                    {model.status === 'DONE' && (
                      <a
                        class="button"
                        href={href(['models', String(model.modelId), 'generate'], { subject })}
                        aria-label={`Generate styles with model ${model.modelId}`}
                      >
                        Generate
                      </a>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
