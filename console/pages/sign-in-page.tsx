import { useState } from 'preact/hooks';
import { ApiFailure, callApi, messageOf } from '../api';
import { Alert } from '../parts/alert';
import { PageHeading } from '../parts/page-heading';
import { saveToken } from '../session';

/** Asks for an API token, checks it with one cheap call, and keeps it in session storage only. */
export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError('');
    const entered = token.trim();
    if (entered === '') return setError('Enter the API token you were given.');
    setBusy(true);
    try {
      await callApi('GET', '/v1/pipelines?limit=1', { token: entered });
      saveToken(entered);
      onSignedIn();
    } catch (err) {
      setError(
        err instanceof ApiFailure && err.status === 401
          ? 'The API does not accept this token.'
          : `Could not sign in: ${messageOf(err)}`,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <PageHeading title="Sign in">Avatar pipeline console</PageHeading>
      <form onSubmit={submit} noValidate>
        <label for="token">API token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'token-error' : 'token-hint'}
        />
        <p id="token-hint" class="hint">
          Kept in this tab only, until you close it or sign out.
        </p>
        {error && (
          <p id="token-error" class="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <Alert kind="info">{busy ? 'Checking the token…' : ''}</Alert>
    </main>
  );
}
