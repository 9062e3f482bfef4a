import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { installErrorHandling } from '../../src/api/error-handler';
import { exitCodeFor } from '../../src/cli/exit-codes';
import { EXIT } from '../../src/cli/exit-codes';
import { ModelNotFoundError } from '@avatar-pipeline/client/client/provider-catalog';
import { RetryRefusedError } from '@avatar-pipeline/client/client/retry-plan';
import { TemporalUnreachableError } from '@avatar-pipeline/client/client/temporal-unreachable';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { AvatarPipelineError, InputError } from '@avatar-pipeline/client/errors';
import { ProviderAuthError } from '@avatar-pipeline/client/provider/errors';
import { parseSimulatorOptions } from '../../src/simulator';

const ROOT = path.join(__dirname, '..', '..');

/** Every `class X extends Y` of the package's code, with its file. */
function classDeclarations(): { name: string; base: string; file: string; exported: boolean }[] {
  const found: { name: string; base: string; file: string; exported: boolean }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(path.join(ROOT, relative), 'utf8');
        for (const m of text.matchAll(/^(export )?(?:abstract )?class (\w+) extends (\w+)/gm)) {
          found.push({ name: m[2]!, base: m[3]!, file: relative, exported: m[1] !== undefined });
        }
      }
    }
  };
  for (const dir of ['src', 'activities', 'workflows']) walk(dir);
  return found;
}

/** The classes descending from Error (by their declared bases), each with its chain of bases. */
function errorClasses() {
  const classes = classDeclarations();
  const byName = new Map(classes.map((c) => [c.name, c]));
  const chainOf = (name: string): string[] => {
    const base = byName.get(name)?.base;
    return base === undefined ? [] : [base, ...chainOf(base)];
  };
  return classes
    .map((c) => ({ ...c, chain: [c.base, ...chainOf(c.base)] }))
    .filter((c) => c.chain.at(-1) === 'Error');
}

describe('one error hierarchy', () => {
  it('no two error classes share a name', () => {
    const names = errorClasses().map((c) => c.name);
    const repeated = names.filter((name, i) => names.indexOf(name) !== i);
    expect(repeated).toEqual([]);
  });

  it('every exported error class descends from AvatarPipelineError (packages/client/src/errors.ts)', () => {
    const outside = errorClasses()
      .filter(
        (c) => c.exported && c.name !== 'AvatarPipelineError' && !c.chain.includes('AvatarPipelineError'),
      )
      .map((c) => `${c.file}: ${c.name}`);
    expect(outside).toEqual([]);
  });

  it('an error is named after its class', () => {
    expect(new ProviderAuthError('x', { endpoint: '/e', method: 'GET' }).name).toBe('ProviderAuthError');
    expect(new RetryRefusedError('wf', 'is running').name).toBe('RetryRefusedError');
    expect(InputError.field('styles', 'is empty')).toMatchObject({
      name: 'InputError',
      message: 'Invalid styles: is empty',
      issues: [{ path: 'styles', message: 'is empty' }],
    });
  });
});

describe('callers tell bad input from failure', () => {
  it.each<[string, unknown, number]>([
    ['an InputError', InputError.field('--styles', 'is empty'), EXIT.badInput],
    [
      'a ConfigError',
      new ConfigError([{ variable: 'PROVIDER_API_KEY', reason: 'is missing' }]),
      EXIT.badInput,
    ],
    ['a model that does not exist', new ModelNotFoundError(7, 'no such model'), EXIT.badInput],
    ['a refused retry', new RetryRefusedError('wf', 'is still running'), EXIT.badInput],
    ['bad simulator options', captured(() => parseSimulatorOptions({ fail5xxRate: 2 })), EXIT.badInput],
    ['a provider refusal', new ProviderAuthError('refused', { endpoint: '/e', method: 'GET' }), EXIT.failed],
    ['Temporal out of reach', new TemporalUnreachableError('127.0.0.1:1', new Error('refused')), EXIT.failed],
    ['any other error', new Error('a bug'), EXIT.failed],
  ])('the CLI exits with the code of %s', (_name, err, code) => {
    expect(err).toBeInstanceOf(Error);
    expect(err instanceof AvatarPipelineError || code === EXIT.failed).toBe(true);
    expect(exitCodeFor(err)).toBe(code);
  });

  it('the API answers any InputError 422 with its issues', async () => {
    const app = Fastify();
    installErrorHandling(app);
    app.get('/refused', () => {
      throw InputError.field('images.0', 'is not a JPEG or PNG image');
    });
    try {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      const response = await fetch(`${address}/refused`);
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({
        error: 'The request is invalid',
        issues: [{ path: 'images.0', message: 'is not a JPEG or PNG image' }],
      });
    } finally {
      await app.close();
    }
  });
});

function captured(body: () => unknown): unknown {
  try {
    body();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}
