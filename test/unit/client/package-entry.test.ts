import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import * as entry from '../../../src/index';

const root = path.join(__dirname, '..', '..', '..');

describe('the package entry point', () => {
  it('is what package.json names as main and types (compiled from src/index.ts)', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      main: string;
      types: string;
    };
    expect(pkg.main).toBe('dist/src/index.js');
    expect(pkg.types).toBe('dist/src/index.d.ts');
    const build = JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8')) as {
      include: string[];
    };
    expect(build.include).toContain('src');
  });

  it('exports the client, the provider client, the simulator and the worker', () => {
    for (const name of [
      'createPipelineClient',
      'loadTemporalConfig',
      'startPipeline',
      'getPipeline',
      'listPipelines',
      'validatePipelineRequest',
      'InputError',
      'ProviderClient',
      'startSimulator',
      'createPipelineWorker',
      'loadConfig',
    ] as const) {
      expect(typeof entry[name]).toBe('function');
    }
  });

  it('leaves the developer tooling (dev server, Temporal installers) to dev/', () => {
    for (const name of ['ensureDevServer', 'startDevServer', 'findTemporalCli']) {
      expect(Object.keys(entry)).not.toContain(name);
    }
  });
});

describe('loadTemporalConfig', () => {
  it('reads address, namespace and task queue with their defaults', () => {
    expect(entry.loadTemporalConfig({})).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'avatar-pipeline',
    });
    expect(
      entry.loadTemporalConfig({
        TEMPORAL_ADDRESS: 'temporal:7000',
        TEMPORAL_NAMESPACE: 'avatars',
        TEMPORAL_TASK_QUEUE: 'q',
      }),
    ).toEqual({ address: 'temporal:7000', namespace: 'avatars', taskQueue: 'q' });
  });

  it('needs no provider settings, but names a bad Temporal variable', () => {
    expect(() => entry.loadTemporalConfig({ PROVIDER_BASE_URL: 'https://provider.example' })).not.toThrow();
    expect(() => entry.loadTemporalConfig({ TEMPORAL_ADDRESS: 'no port' })).toThrow(entry.ConfigError);
    expect(() => entry.loadTemporalConfig({ TEMPORAL_ADDRESS: 'no port' })).toThrow(/TEMPORAL_ADDRESS/);
  });
});

describe('listPipelines', () => {
  // Validation comes before any call, so a client that fails every call shows nothing was asked.
  const unusable = new Proxy(
    {},
    {
      get: () => {
        throw new Error('no call expected');
      },
    },
  ) as Client;

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 1.5 }, 'limit'],
    [{ limit: 5000 }, 'limit'],
    [{ status: 'sleeping' }, 'status'],
    [{ subjectId: '' }, 'subjectId'],
    [{ subjectId: "o'brien" }, 'subjectId'],
    [{ campaignId: 'a"b' }, 'campaignId'],
    [{ kind: 'everything' }, 'kind'],
    [{ cursor: 'not a cursor' }, 'cursor'],
    [{ cursor: 'AAAAAAAAAAAA.AAAA' }, 'cursor'],
  ])('refuses %j, naming %s', async (options, field) => {
    const attempt = entry.listPipelines(unusable, options as entry.ListPipelinesOptions);
    await expect(attempt).rejects.toBeInstanceOf(entry.InputError);
    await expect(attempt).rejects.toMatchObject({ issues: [expect.objectContaining({ path: field })] });
  });
});
