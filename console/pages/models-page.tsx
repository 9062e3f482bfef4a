import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { Models } from '../api-types';
import { Alert } from '../parts/alert';
import { PageHeading } from '../parts/page-heading';
import { href } from '../router';

const GENDERS: Record<number, string> = { 1: 'Woman', 2: 'Man' };

/** The provider's trained models; a DONE one can generate more styles without training again. */
export function ModelsPage() {
  const [models, setModels] = useState<Models['models'] | undefined>();
  const [error, setError] = useState('');
  useEffect(() => {
    callApi<Models>('GET', '/v1/models')
      .then((answer) => setModels(answer.models))
      .catch((err: unknown) => setError(messageOf(err)));
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
              <th scope="col">Created</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {models.map((model) => (
              <tr key={model.modelId}>
                <th scope="row" data-label="Model">
                  {model.modelId}
                </th>
                <td data-label="Status">{model.status}</td>
                <td data-label="Gender">{model.gender ? GENDERS[model.gender] : ''}</td>
                <td data-label="Created">
                  {model.createdAt ? new Date(model.createdAt).toLocaleString() : ''}
                </td>
                <td data-label="">
                  {model.status === 'DONE' && (
                    <a
                      class="button"
                      href={href(['models', String(model.modelId), 'generate'])}
                      aria-label={`Generate styles with model ${model.modelId}`}
                    >
                      Generate
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
