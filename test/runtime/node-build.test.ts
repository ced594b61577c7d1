import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { ROOT, spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { runtimeConfig, runtimeSuite } from './suite.ts';

const run = promisify(execFile);
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** `npm start` as it runs in production: `npm run build` (esbuild → dist/node.mjs), then Node on the output with its flags. */
describe('node adapter, built as npm start runs it', () => {
  let upstream: FakeUpstream;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    const [node, ...args] = scripts.start!.split(' ');
    expect(node).toBe('node');
    expect(scripts.prestart).toBe('npm run --silent build');
    await run('npm', ['run', '--silent', 'build'], { cwd: ROOT });
    upstream = await startFakeUpstream();
    gateway = await spawnGateway(process.execPath, args, runtimeConfig(upstream.url));
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('runs without a TypeScript loader (no tsx in the process)', () => {
    expect(scripts.start).toMatch(/ dist\/node\.mjs$/);
    expect(scripts.start).not.toContain('tsx');
  });

  runtimeSuite('node (built)', () => gateway.url, { upstream: () => upstream, records: true, framesWholeStreams: true });
});
