import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, runtimeBin } from './spawn-gateway.ts';

const run = promisify(execFile);
const bun = runtimeBin('bun');

interface Wire {
  length: string | null;
  chunked: boolean;
  body: string;
}

interface Probe {
  status: number;
  type: string | null;
  answeredMs: number;
  readsBeforeBody: number;
  writtenBeforeBody: boolean;
  body: string;
}

/**
 * The Bun relay reads what a stream already holds before it hands Bun the Response, so that
 * headers and those chunks leave in one send, and an answer that has already ended goes to Bun as
 * one body; a chunk still on its way must not hold the headers back.
 */
describe.skipIf(!bun)('writeBunResponse (on Bun)', () => {
  it('reads ahead what is already there, never waits for what is not, and still relays every byte', async () => {
    const { stdout } = await run(bun!, ['run', 'test/runtime/fixtures/bun-response-probe.ts'], { cwd: ROOT });
    const result = JSON.parse(stdout) as Record<'ready' | 'waiting' | 'partly' | 'failing' | 'long' | 'bufferedThenMore', Probe> & {
      whole: { atOnce: boolean; byTurnEnd: boolean; body: string; writtenAtOnce: boolean; written: boolean };
      buffered: { atOnce: boolean; byTurnEnd: boolean; body: string; reads: number; writtenAtOnce: boolean; written: boolean };
      readyOnWire: Wire;
      partlyOnWire: Wire;
    };

    // Both chunks and the end were read before the Response existed: Bun sends them with the headers.
    expect(result.ready).toMatchObject({ status: 200, type: 'text/event-stream', readsBeforeBody: 3, body: 'event: a\n\nevent: b\n\n' });
    // ... as one body, not a stream for Bun to pull: the answer is in Bun's hands with the Response.
    expect(result.ready.writtenBeforeBody).toBe(true);
    expect(result.partly.writtenBeforeBody).toBe(false);
    // On the wire: an answer that was whole leaves with its length; one that goes on, chunk by chunk.
    expect(result.readyOnWire).toEqual({ length: '20', chunked: false, body: 'event: a\n\nevent: b\n\n' });
    expect(result.partlyOnWire).toEqual({ length: null, chunked: true, body: 'event: now\n\nevent: later\n\n' });
    // The only chunk comes 200 ms later: the Response is answered at once, the chunk follows.
    expect(result.waiting.answeredMs).toBeLessThan(100);
    expect(result.waiting).toMatchObject({ readsBeforeBody: 1, body: 'event: late\n\n' });
    expect(result.partly.answeredMs).toBeLessThan(100);
    expect(result.partly).toMatchObject({ readsBeforeBody: 2, body: 'event: now\n\nevent: later\n\n' });
    // A stream that fails at once still answers (headers out), then breaks off, as it did before.
    expect(result.failing.status).toBe(200);
    expect(result.failing.body).toMatch(/^error: /);
    // 40 chunks of 8 KiB already there: read ahead up to 256 KiB (32 chunks), the rest in the pull.
    expect(result.long).toMatchObject({ readsBeforeBody: 32, body: `${40 * 8 * 1024} characters, ending 39` });
    // Bodies that are not streams go to Bun at the turn's end, with the turn's other writes; `written`
    // (which gives the connection its idle limit back) comes with them, not while they wait.
    expect(result.whole).toEqual({ atOnce: false, byTurnEnd: true, body: '{"ok":true}', writtenAtOnce: false, written: true });
    // A reader that holds the whole answer already (readBuffered, done): one body, no read, at the turn's end.
    expect(result.buffered).toEqual({ atOnce: false, byTurnEnd: true, body: 'event: a\n\nevent: b\n\n', reads: 0, writtenAtOnce: false, written: true });
    // What it holds of a longer one comes first, then what is read, the last chunk after the Response.
    expect(result.bufferedThenMore).toMatchObject({ status: 200, readsBeforeBody: 2, writtenBeforeBody: false, body: 'event: held\n\nevent: read\n\nevent: later\n\n' });
    expect(result.bufferedThenMore.answeredMs).toBeLessThan(100);
  }, 30_000);
});
