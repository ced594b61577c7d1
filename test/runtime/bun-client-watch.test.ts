import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUN_WATCH_AFTER_MS } from '../../adapters/bun-client-watch.ts';
import { ROOT, runtimeBin } from './spawn-gateway.ts';

const run = promisify(execFile);
const bun = runtimeBin('bun');

/**
 * The Bun adapter reads Bun's `request.signal` only for a request still unanswered after a tick,
 * which relies on Bun giving a signal first read after its client has gone as already aborted.
 */
describe.skipIf(!bun)('createBunClientWatch (on Bun)', () => {
  it('never makes Bun’s signal for quick answers, and still hears a client that left early or late', async () => {
    const { stdout } = await run(bun!, ['run', 'test/runtime/fixtures/bun-client-watch-probe.ts'], { cwd: ROOT });
    const result = JSON.parse(stdout) as { readsWhenQuick: number; reads: number; early: number | null; late: number | null };
    expect(result.readsWhenQuick).toBe(0);
    // The two waiting requests read it once each.
    expect(result.reads).toBe(2);
    // Left 2 ms in, before its signal existed: heard when the sweep made it, already aborted.
    expect(result.early).not.toBeNull();
    expect(result.early!).toBeLessThan(2 * BUN_WATCH_AFTER_MS + 100);
    // Left 300 ms in, long after the sweep listened: heard at once.
    expect(result.late).not.toBeNull();
    expect(result.late!).toBeLessThan(50);
  });
});
