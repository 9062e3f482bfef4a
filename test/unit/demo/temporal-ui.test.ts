import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answersHttp, guessUiUrl, workflowUiUrl } from '../../../dev/demo/temporal-ui';
import { findFreePort } from '../../../dev/devserver';

describe('Temporal UI links', () => {
  it('point at the run of a workflow, encoding the id', () => {
    expect(workflowUiUrl('http://127.0.0.1:8233/', 'default', 'avatar-pipeline-1')).toBe(
      'http://127.0.0.1:8233/namespaces/default/workflows/avatar-pipeline-1',
    );
    expect(workflowUiUrl('http://ui', 'team a', 'wf/callback')).toBe(
      'http://ui/namespaces/team%20a/workflows/wf%2Fcallback',
    );
  });

  it('guess the UI at the frontend port + 1000, as `temporal server start-dev` puts it', () => {
    expect(guessUiUrl('localhost:7233')).toBe('http://127.0.0.1:8233');
    expect(guessUiUrl('10.0.0.5:7000')).toBe('http://10.0.0.5:8000');
  });

  it('tell whether something answers there', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await answersHttp(`http://127.0.0.1:${port}`)).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await answersHttp(`http://127.0.0.1:${await findFreePort()}`)).toBe(false);
  });
});
