import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, runtimeBin } from './spawn-gateway.ts';

const run = promisify(execFile);
const PROBE = 'test/runtime/fixtures/stream-wire-probe.ts';

type Probe = Record<string, { wire: unknown; same: boolean; spans: number }>;

async function probe(command: string, args: string[]): Promise<Probe> {
  const { stdout } = await run(command, [...args, PROBE], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as Probe;
}

/**
 * The stream readers that read text events from their bytes (TextDecoder with ignoreBOM, DataView,
 * the frames' own byte writes) agree with the plain parsing reader on every runtime, and every
 * runtime puts the same bytes on each family's wire as Node does.
 */
describe('stream readers from bytes, on every runtime', () => {
  let node: Probe;

  it('on Node: the same wire as parsing every event, for every fixture and cut', async () => {
    node = await probe(process.execPath, ['--import', 'tsx']);
    expect(Object.keys(node).length).toBeGreaterThan(80);
    for (const [name, { same }] of Object.entries(node)) expect(same, name).toBe(true);
    expect(node['openai the bench stream, pieces of 64']!.spans).toBeGreaterThan(20);
    expect(node['anthropic the bench stream, pieces of 64']!.spans).toBeGreaterThan(10);
    expect(node['anthropic the bench stream with CRLF line ends, pieces of 64']!.spans).toBeGreaterThan(10);
    expect(node['gemini the bench stream, pieces of 64']!.spans).toBeGreaterThan(20);
  }, 60_000);

  for (const [runtime, args] of [['bun', ['run']], ['deno', ['run', '-A']]] as const) {
    const bin = runtimeBin(runtime);
    it.skipIf(!bin)(`on ${runtime}: the same wire as parsing, and the same as Node's`, async () => {
      const result = await probe(bin!, [...args]);
      for (const [name, { same }] of Object.entries(result)) expect(same, name).toBe(true);
      node ??= await probe(process.execPath, ['--import', 'tsx']);
      expect(result).toEqual(node);
    }, 60_000);
  }
});
