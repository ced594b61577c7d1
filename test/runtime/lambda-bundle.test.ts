import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './spawn-gateway.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'sy-lambda-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The bundle deploy/README.md tells people to build, built and invoked exactly that way. */
describe('Lambda bundle', () => {
  it('builds with the documented esbuild command and answers an HTTP API v2 event', async () => {
    const out = join(dir, 'index.mjs');
    await run(join(ROOT, 'node_modules/.bin/esbuild'), [
      'adapters/lambda.ts', '--bundle', '--platform=node', '--target=node22', '--format=esm',
      '--external:bun:sqlite', '--external:better-sqlite3', `--outfile=${out}`, '--log-level=error',
    ], { cwd: ROOT });
    const event = {
      version: '2.0', routeKey: '$default', rawPath: '/api/openai/v1/models', rawQueryString: '',
      headers: { authorization: 'Bearer sk-lambda-bundle-test', host: 'abc.lambda-url.us-east-1.on.aws' },
      requestContext: { http: { method: 'GET', path: '/api/openai/v1/models', sourceIp: '203.0.113.7' }, domainName: 'abc.lambda-url.us-east-1.on.aws', requestId: 'r1' },
      isBase64Encoded: false,
    };
    const script = `import('${out}').then(async (m) => { const r = await m.handler(${JSON.stringify(event)}, {}); process.stdout.write('\\nRESULT ' + JSON.stringify(r) + '\\n'); })`;
    const { stdout } = await run(process.execPath, ['-e', script], {
      cwd: dir,
      env: { PATH: process.env.PATH, SWITCHYARD_KEY: 'sk-lambda-bundle-test', ANTHROPIC_API_KEY: 'sk-ant-x' },
    });
    const result = JSON.parse(stdout.split('\n').find((line) => line.startsWith('RESULT '))!.slice('RESULT '.length));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).data.map((m: { id: string }) => m.id)).toContain('claude-sonnet-4-6');
  }, 30_000);
});
