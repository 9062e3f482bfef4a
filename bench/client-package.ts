/**
 * Benchmark: what an app pays for the client package, beside what it pays for the Temporal client
 * and zod alone (the floor: the client package depends on them and nothing else), in one run on
 * one machine: install size and package count, install time, load time (median of runs that
 * alternate between the two apps) and bundle size (esbuild, minified and not).
 *
 *   npm run bench:client-package
 *   node dist/bench/client-package.js --runs 5 [--with-platform]
 *
 * `--with-platform` adds the platform package (`avatar-pipeline`, the client's old home) as a third
 * column. Installs read npm's cache first (`--prefer-offline`), so install times are those of a
 * warm cache; sizes and counts do not depend on it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { markdownTable, type Row } from './report-table';
import { stringArg } from './cli-args';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const ESBUILD = path.join(ROOT, 'node_modules/.bin/esbuild');
/** The issue's targets: at most 80 MB installed, loading in at most 1.5 times the floor's time. */
const TARGET = { installMb: 80, loadRatio: 1.5 };

interface App {
  label: string;
  dir: string;
  dependencies: Record<string, string>;
  /** The modules an app of this kind loads. */
  modules: string[];
}

interface Figures {
  installMb: number;
  packages: number;
  installSeconds: number;
  loadMs: number[];
  /** Not for the platform, which loads native code that no bundler takes. */
  bundleKb?: number;
  minifiedKb?: number;
}

async function sizeOf(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

async function install(app: App): Promise<Pick<Figures, 'installMb' | 'packages' | 'installSeconds'>> {
  await mkdir(app.dir);
  await writeFile(
    path.join(app.dir, 'package.json'),
    JSON.stringify({ name: 'app', private: true, dependencies: app.dependencies }),
  );
  const started = performance.now();
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: app.dir,
    maxBuffer: 16 << 20,
  });
  const installSeconds = (performance.now() - started) / 1000;
  const lock = JSON.parse(await readFile(path.join(app.dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  const packages = Object.keys(lock.packages).filter((key) => key.startsWith('node_modules/')).length;
  return { installMb: (await sizeOf(path.join(app.dir, 'node_modules'))) / 1e6, packages, installSeconds };
}

/** Milliseconds to require the app's modules, measured inside a fresh Node process. */
async function loadTime(app: App): Promise<number> {
  const script = [
    'const started = process.hrtime.bigint();',
    ...app.modules.map((name) => `require(${JSON.stringify(name)});`),
    'process.stdout.write(String(Number(process.hrtime.bigint() - started) / 1e6));',
  ].join('\n');
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: app.dir });
  return Number(stdout);
}

async function bundleSizes(app: App): Promise<Pick<Figures, 'bundleKb' | 'minifiedKb'>> {
  const entry = path.join(app.dir, 'entry.js');
  await writeFile(
    entry,
    app.modules
      .map((name) => `module.exports[${JSON.stringify(name)}] = require(${JSON.stringify(name)});`)
      .join('\n'),
  );
  const sizes: number[] = [];
  for (const minify of [false, true]) {
    const outfile = path.join(app.dir, minify ? 'bundle.min.js' : 'bundle.js');
    const args = [
      entry,
      '--bundle',
      '--platform=node',
      '--target=node22',
      `--outfile=${outfile}`,
      '--log-level=error',
    ];
    await run(ESBUILD, minify ? [...args, '--minify'] : args, { cwd: app.dir });
    sizes.push((await stat(outfile)).size / 1e3);
  }
  return { bundleKb: sizes[0]!, minifiedKb: sizes[1]! };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const runs = Number(stringArg(process.argv, 'runs', '5'));
  const scratch = await mkdtemp(path.join(tmpdir(), 'bench-client-package-'));
  try {
    const packed = async (dir: string) => {
      const { stdout } = await run(
        'npm',
        ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch],
        {
          cwd: dir,
        },
      );
      return path.join(scratch, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
    };
    const rootManifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const clientTarball = await packed(path.join(ROOT, 'packages/client'));
    const apps: App[] = [
      {
        label: '@avatar-pipeline/client',
        dir: path.join(scratch, 'client'),
        dependencies: { '@avatar-pipeline/client': `file:${clientTarball}` },
        modules: ['@avatar-pipeline/client'],
      },
      {
        label: '@temporalio/client + zod',
        dir: path.join(scratch, 'floor'),
        dependencies: {
          '@temporalio/client': rootManifest.dependencies['@temporalio/client']!,
          zod: rootManifest.dependencies.zod!,
        },
        modules: ['@temporalio/client', 'zod'],
      },
    ];
    if (process.argv.includes('--with-platform')) {
      apps.push({
        label: 'avatar-pipeline (platform)',
        dir: path.join(scratch, 'platform'),
        dependencies: {
          '@avatar-pipeline/client': `file:${clientTarball}`,
          'avatar-pipeline': `file:${await packed(ROOT)}`,
        },
        modules: ['avatar-pipeline'],
      });
    }

    const figures = new Map<App, Figures>();
    for (const [index, app] of apps.entries()) {
      figures.set(app, { ...(await install(app)), loadMs: [], ...(index < 2 ? await bundleSizes(app) : {}) });
    }
    for (let i = 0; i < runs; i++) {
      for (const app of apps) figures.get(app)!.loadMs.push(await loadTime(app));
    }

    const [client, floor] = apps.map((app) => figures.get(app)!) as [Figures, Figures];
    const rows: Row[] = [
      {
        figure: 'installed (node_modules)',
        product: `${client.installMb.toFixed(1)} MB, ${client.packages} packages`,
        baseline: `${floor.installMb.toFixed(1)} MB, ${floor.packages} packages`,
        target: `≤ ${TARGET.installMb} MB`,
        met: client.installMb <= TARGET.installMb,
      },
      {
        figure: 'install time (warm npm cache)',
        product: `${client.installSeconds.toFixed(1)} s`,
        baseline: `${floor.installSeconds.toFixed(1)} s`,
        target: '-',
      },
      {
        figure: `load (require), median of ${runs}`,
        product: `${median(client.loadMs).toFixed(0)} ms`,
        baseline: `${median(floor.loadMs).toFixed(0)} ms`,
        target: `≤ ${TARGET.loadRatio}× (${(median(client.loadMs) / median(floor.loadMs)).toFixed(2)}×)`,
        met: median(client.loadMs) <= TARGET.loadRatio * median(floor.loadMs),
      },
      {
        figure: 'esbuild bundle (minified)',
        product: `${client.bundleKb?.toFixed(0)} kB (${client.minifiedKb?.toFixed(0)} kB)`,
        baseline: `${floor.bundleKb?.toFixed(0)} kB (${floor.minifiedKb?.toFixed(0)} kB)`,
        target: '-',
      },
    ];
    console.log(
      `client package vs @temporalio/client + zod; node ${process.version}; ${new Date().toISOString()}\n`,
    );
    console.log(markdownTable(rows).replace('Temporal pipeline', 'client package'));
    for (const app of apps.slice(2)) {
      const f = figures.get(app)!;
      console.log(
        `\n${app.label}: ${f.installMb.toFixed(1)} MB, ${f.packages} packages, install ${f.installSeconds.toFixed(1)} s, ` +
          `load median ${median(f.loadMs).toFixed(0)} ms`,
      );
    }
    console.log(
      `\nload runs (ms): ${apps
        .map(
          (app) =>
            `${app.label} ${figures
              .get(app)!
              .loadMs.map((ms) => ms.toFixed(0))
              .join(' ')}`,
        )
        .join('; ')}`,
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
