import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type * as WorkflowBundleModule from '../../src/worker/workflow-bundle';

const DIST = path.join(__dirname, '..', '..', 'dist');

/**
 * The compiled worker (dist/, what `avatar-pipeline worker` runs; `npm test` builds it first) loads
 * the workflow bundles `npm run build` wrote, one per variant, instead of bundling at start.
 */
describe('the workflow bundles built by npm run build', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const compiled = require(
    path.join(DIST, 'src', 'worker', 'workflow-bundle.js'),
  ) as typeof WorkflowBundleModule;

  it.each(compiled.WORKFLOW_BUNDLE_VARIANTS.map((variant) => [JSON.stringify(variant), variant] as const))(
    'are what the compiled worker loads, by path (%s)',
    async (_name, variant) => {
      const bundle = await compiled.pipelineWorkflowBundle(variant);
      const codePath = path.join(
        DIST,
        'workflow-bundles',
        path.basename(compiled.workflowBundleFile(variant)),
      );
      expect(bundle).toEqual({ codePath });
      expect(existsSync(codePath) && statSync(codePath).size).toBeGreaterThan(100_000);
    },
  );
});

/**
 * Every worker thread compiles and keeps the whole bundle, so a library the workflows do not run
 * costs memory on every worker (zod alone doubled the bundle when two contracts imported it for
 * their schemas). The bundles hold the SDK and what it depends on, and the project's own code.
 */
describe('what the workflow bundles hold', () => {
  const ROOT = path.join(__dirname, '..', '..');
  const packageOf = (source: string): string | undefined => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
    return match?.[1];
  };
  const sdkClosure = (): Set<string> => {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      const manifest = JSON.parse(
        readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8'),
      ) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
      for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
        if (existsSync(path.join(ROOT, 'node_modules', dep, 'package.json'))) visit(dep);
      }
    };
    for (const name of readdirSync(path.join(ROOT, 'node_modules', '@temporalio'))) {
      visit(`@temporalio/${name}`);
    }
    return seen;
  };

  it.each(readdirSync(path.join(DIST, 'workflow-bundles')).filter((file) => file.endsWith('.js')))(
    '%s: no package besides the SDK and its dependencies',
    (file) => {
      const code = readFileSync(path.join(DIST, 'workflow-bundles', file), 'utf8');
      const marker = 'sourceMappingURL=data:application/json;charset=utf-8;base64,';
      const at = code.lastIndexOf(marker);
      expect(at).toBeGreaterThan(0);
      const map = JSON.parse(Buffer.from(code.slice(at + marker.length).trim(), 'base64').toString()) as {
        sources: string[];
      };
      const packages = new Set(map.sources.map(packageOf).filter((name) => name !== undefined));
      expect(packages.has('@temporalio/workflow')).toBe(true);
      const allowed = sdkClosure();
      expect([...packages].filter((name) => !allowed.has(name))).toEqual([]);
    },
  );
});
