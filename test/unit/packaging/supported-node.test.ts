import { readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * One Node line everywhere the project names one: both packages' `engines`, the image's base and
 * the Node that CI installs when the machine's is older (scripts/lts-node.sh). That line is an LTS
 * still supported (Node 20's support ended in April 2026; 22 and later are).
 */
const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const engines = (file: string) => (JSON.parse(read(file)) as { engines: { node: string } }).engines.node;

test('engines, the Dockerfile and the CI Node name the same supported LTS line', () => {
  const script = read('scripts/lts-node.sh');
  const minimum = /^minimum=(\S+)$/m.exec(script)?.[1];
  const installed = /^version=(\S+)$/m.exec(script)?.[1];
  expect(engines('package.json')).toBe(`>=${minimum}`);
  expect(engines('packages/client/package.json')).toBe(`>=${minimum}`);
  const dockerMajors = [...read('Dockerfile').matchAll(/^FROM node:(\d+)-/gm)].map((m) => m[1]);
  expect(dockerMajors).toEqual(['22', '22']);
  expect(minimum?.split('.')[0]).toBe('22');
  expect(installed?.split('.')[0]).toBe('22');
  // The Node CI installs satisfies the minimum.
  expect(Number(installed?.split('.')[1])).toBeGreaterThanOrEqual(Number(minimum?.split('.')[1]));
});
