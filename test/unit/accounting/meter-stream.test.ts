import { describe, expect, it } from 'vitest';
import { meterStream } from '../../../core/accounting/meter-stream.ts';
import type { CallOutcome } from '../../../core/accounting/types.ts';
import { GatewayError } from '../../../core/errors.ts';
import type { StreamEvent } from '../../../core/ir.ts';

const EVENTS: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'm', usage: { inputTokens: 10, cacheReadTokens: 5 } },
  { type: 'block-start', index: 0, block: { type: 'text' } },
  { type: 'text-delta', index: 0, text: 'hi' },
  { type: 'usage', usage: { outputTokens: 3 } },
  { type: 'block-end', index: 0 },
  { type: 'finish', reason: 'stop', usage: { inputTokens: 10, outputTokens: 7 } },
];

function recorder() {
  const settled: CallOutcome[] = [];
  return { settled, reservation: { settle: (o: CallOutcome) => void settled.push(o) } };
}

function source(events: StreamEvent[], end: 'close' | 'error' | 'hang'): ReadableStream<StreamEvent> {
  return new ReadableStream({
    start(controller) {
      for (const e of events) controller.enqueue(e);
      if (end === 'close') controller.close();
      if (end === 'error') setTimeout(() => controller.error(new GatewayError('upstream', 'connection reset')), 5);
    },
  });
}

async function drain(stream: ReadableStream<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

describe('meterStream', () => {
  it('passes events through and settles once at the end with the merged usage', async () => {
    const { settled, reservation } = recorder();
    const out = await drain(source(EVENTS, 'close').pipeThrough(meterStream(reservation, { started: performance.now(), provider: 'p', upstreamModel: 'u', signal: new AbortController().signal })));
    expect(out).toEqual(EVENTS);
    expect(settled).toEqual([
      { provider: 'p', upstreamModel: 'u', status: 200, usage: { inputTokens: 10, cacheReadTokens: 5, outputTokens: 7 }, latencyMs: expect.any(Number), ttfbMs: expect.any(Number), aborted: false },
    ]);
  });

  it('settles as aborted with the usage seen so far when the client goes away', async () => {
    const { settled, reservation } = recorder();
    const client = new AbortController();
    const reader = source(EVENTS.slice(0, 4), 'hang').pipeThrough(meterStream(reservation, { started: performance.now(), signal: client.signal })).getReader();
    for (let i = 0; i < 4; i++) await reader.read();
    client.abort();
    await reader.cancel('client gone');
    expect(settled).toEqual([{ status: 200, usage: { inputTokens: 10, cacheReadTokens: 5, outputTokens: 3 }, latencyMs: expect.any(Number), ttfbMs: expect.any(Number), aborted: true }]);
  });

  it('settles with the error status when the upstream stream fails', async () => {
    const { settled, reservation } = recorder();
    await expect(drain(source(EVENTS.slice(0, 1), 'error').pipeThrough(meterStream(reservation, { started: 0, signal: new AbortController().signal })))).rejects.toThrow('connection reset');
    expect(settled).toMatchObject([{ status: 502, aborted: false, usage: { inputTokens: 10, outputTokens: 0 } }]);
  });
});
