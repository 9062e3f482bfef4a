import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  buildDevServerArgs,
  TASK_QUEUE_DYNAMIC_CONFIG,
  type DevServerArgsInput,
} from '../../../dev/devserver/dev-server-args';

const base: DevServerArgsInput = {
  dbFile: '/data/t.db',
  ip: '127.0.0.1',
  port: 7233,
  uiPort: 8233,
  namespace: 'default',
};

function flagValues(args: string[], flag: string): string[] {
  return args.flatMap((arg, i) => (arg === flag ? [args[i + 1] ?? ''] : []));
}

describe('buildDevServerArgs', () => {
  it('starts a persistent dev server bound to the given address', () => {
    const args = buildDevServerArgs(base);
    expect(args.slice(0, 2)).toEqual(['server', 'start-dev']);
    expect(flagValues(args, '--db-filename')).toEqual(['/data/t.db']);
    expect(flagValues(args, '--ip')).toEqual(['127.0.0.1']);
    expect(flagValues(args, '--port')).toEqual(['7233']);
    expect(flagValues(args, '--ui-port')).toEqual(['8233']);
    expect(flagValues(args, '--log-level')).toEqual(['warn']);
    expect(args).not.toContain('--headless');
  });

  it('turns on priority, fairness, one partition and versioning, unless told otherwise', () => {
    const values = flagValues(buildDevServerArgs(base), '--dynamic-config-value');
    expect(values).toContain('matching.useNewMatcher=true');
    expect(values).toContain('matching.enableFairness=true');
    expect(values).toContain('matching.numTaskqueueReadPartitions=1');
    expect(values).toContain('system.enableDeploymentVersions=true');
    expect(
      flagValues(
        buildDevServerArgs({ ...base, dynamicConfig: { 'matching.numTaskqueueReadPartitions': 1 } }),
        '--dynamic-config-value',
      ),
    ).toEqual(['matching.numTaskqueueReadPartitions=1']);
  });

  it('gives the dev server the dynamic config compose and the cluster tier give the server', () => {
    const file = path.resolve(__dirname, '../../../deploy/temporal/dynamicconfig.yaml');
    const deployed = parse(readFileSync(file, 'utf8')) as Record<string, { value: unknown }[]>;
    const values = Object.fromEntries(Object.entries(deployed).map(([key, [first]]) => [key, first?.value]));
    expect(TASK_QUEUE_DYNAMIC_CONFIG).toEqual(values);
  });

  it('runs headless without a UI port', () => {
    const args = buildDevServerArgs({ ...base, uiPort: undefined });
    expect(args).toContain('--headless');
    expect(args).not.toContain('--ui-port');
  });

  it('creates a namespace other than "default", which always exists', () => {
    expect(buildDevServerArgs(base)).not.toContain('--namespace');
    expect(flagValues(buildDevServerArgs({ ...base, namespace: 'avatars' }), '--namespace')).toEqual([
      'avatars',
    ]);
  });

  it('registers each search attribute as name=Type', () => {
    const args = buildDevServerArgs({
      ...base,
      searchAttributes: { AvatarStage: 'Keyword', Progress: 'Int' },
    });
    expect(flagValues(args, '--search-attribute')).toEqual(['AvatarStage=Keyword', 'Progress=Int']);
  });

  it('rejects search attribute names and types the server would refuse', () => {
    expect(() => buildDevServerArgs({ ...base, searchAttributes: { 'bad name': 'Keyword' } })).toThrow(
      /not an identifier/,
    );
    const unknownType = { Stage: 'String' } as unknown as DevServerArgsInput['searchAttributes'];
    expect(() => buildDevServerArgs({ ...base, searchAttributes: unknownType })).toThrow(
      /unknown type "String"/,
    );
  });
});
