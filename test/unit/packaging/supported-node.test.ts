import { readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * One Node line everywhere the project names one: both packages' `engines`, the image's base and
 * the Node that CI installs when the machine's is older (scripts/lts-node.sh). That line is an LTS
 * still supported (Node 20's support ended in April 2026; 22 and later are).
 */
const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const enginesMajor = (file: string) => {
  const range = (JSON.parse(read(file)) as { engines: { node: string } }).engines.node;
  return Number(/^>=(\d+)\.\d+/.exec(range)?.[1]);
};

test('engines, the Dockerfile and the CI Node name the same supported LTS line', () => {
  const dockerMajors = [...read('Dockerfile').matchAll(/^FROM node:(\d+)-/gm)].map((m) => Number(m[1]));
  const ciMajor = Number(/^version=(\d+)\./m.exec(read('scripts/lts-node.sh'))?.[1]);
  const majors = [
    enginesMajor('package.json'),
    enginesMajor('packages/client/package.json'),
    ...dockerMajors,
    ciMajor,
  ];
  expect(dockerMajors).toHaveLength(2);
  expect(new Set(majors)).toEqual(new Set([22]));
});
