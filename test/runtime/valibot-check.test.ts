import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, runtimeBin } from './spawn-gateway.ts';

const run = promisify(execFile);
const PROBE = 'test/runtime/fixtures/valibot-check-probe.ts';

type Probe = Record<string, { usual: boolean[]; answers: string; wrong: number }>;

async function probe(command: string, args: string[]): Promise<Probe> {
  const { stdout } = await run(command, [...args, PROBE], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as Probe;
}

/**
 * The compiled schema checks take the usual body on every runtime (else every translated request
 * there would quietly fall back to valibot), pass nothing valibot would refuse or change, and
 * answer each mutated body as they do on Node.
 */
describe('compiled schema checks, on every runtime', () => {
  let node: Probe;

  const expectSound = (result: Probe) => {
    expect(Object.keys(result)).toHaveLength(4);
    for (const [name, { usual, answers, wrong }] of Object.entries(result)) {
      expect(usual.every(Boolean), name).toBe(true);
      expect(wrong, name).toBe(0);
      // Both answers occur, or the comparison says nothing.
      expect(answers, name).toMatch(/0.*1|1.*0/);
    }
  };

  it('on Node', async () => {
    node = await probe(process.execPath, ['--import', 'tsx']);
    expectSound(node);
  }, 60_000);

  for (const [runtime, args] of [['bun', ['run']], ['deno', ['run', '-A']]] as const) {
    const bin = runtimeBin(runtime);
    it.skipIf(!bin)(`on ${runtime}, answering as Node does`, async () => {
      const result = await probe(bin!, [...args]);
      expectSound(result);
      node ??= await probe(process.execPath, ['--import', 'tsx']);
      expect(result).toEqual(node);
    }, 60_000);
  }
});
