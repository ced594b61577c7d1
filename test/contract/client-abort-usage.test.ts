/**
 * A client that leaves mid-stream, through the real Node adapter: the upstream call is cancelled
 * and the usage record is settled once, marked aborted, with the counts seen so far. A relayed
 * stream settles from the relay's cancel; a translated one's meter also reads the client signal
 * the adapter hands core (its light ClientAbort, core/http/client-signal.ts): without that signal
 * the second case settles as a 502, not as aborted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMeter } from '../../core/accounting/meter.ts';
import { createMemoryLimiter } from '../../core/accounting/memory-limiter.ts';
import type { UsageRecord } from '../../core/accounting/types.ts';
import { sseChunks, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, TEST_KEY, testConfig, type RunningGateway } from '../helpers/gateway.ts';
import { loadFixture } from '../helpers/streams.ts';

let upstream: FakeUpstream;
let gateway: RunningGateway;
const records: UsageRecord[] = [];

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const meter = createMeter({ limiter: createMemoryLimiter(), usage: { add: (record) => void records.push(record), flush: async () => {} }, prices: {} });
  const config = testConfig({
    providers: {
      claude: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant' },
      oss: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-oss' },
    },
    models: [
      { id: 'claude-test', routes: [{ provider: 'claude', model: 'claude-up' }] },
      { id: 'oss-test', routes: [{ provider: 'oss', model: 'gpt-oss-120b' }] },
    ],
  });
  gateway = await startTestGateway(config, { meter });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

async function waitForRecord(model: string): Promise<UsageRecord> {
  for (let waited = 0; waited < 5000; waited += 20) {
    const found = records.filter((r) => r.model === model);
    if (found.length) return found[0]!;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no usage record for ${model}`);
}

/** Starts a Claude-style stream, reads its first chunk, then leaves. */
async function leaveAfterFirstChunk(model: string): Promise<string> {
  const controller = new AbortController();
  const res = await fetch(`${gateway.url}/api/anthropic/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const first = await res.body!.getReader().read();
  controller.abort();
  return new TextDecoder().decode(first.value);
}

describe('a client leaving mid-stream (Node adapter)', () => {
  it('passthrough: cancels the upstream call and settles the usage seen so far, as aborted', async () => {
    const before = upstream.aborts;
    const start =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-up","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"cache_read_input_tokens":4,"output_tokens":1}}}\n\n';
    upstream.reply(() => ({ chunks: [start], hang: true }));
    expect(await leaveAfterFirstChunk('claude-test')).toContain('message_start');
    await upstream.waitForAborts(before + 1, 5000);
    const record = await waitForRecord('claude-test');
    expect(record).toMatchObject({ aborted: true, inputTokens: 21, cacheReadTokens: 4, outputTokens: 1, provider: 'claude' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(records.filter((r) => r.model === 'claude-test')).toHaveLength(1);
  });

  it('translated: cancels the upstream call and settles once, as aborted', async () => {
    const before = upstream.aborts;
    upstream.reply(() => ({ chunks: sseChunks(loadFixture('openai/text.sse')).slice(0, 2), hang: true }));
    expect(await leaveAfterFirstChunk('oss-test')).toContain('message_start');
    await upstream.waitForAborts(before + 1, 5000);
    const record = await waitForRecord('oss-test');
    expect(record).toMatchObject({ aborted: true, provider: 'oss' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(records.filter((r) => r.model === 'oss-test')).toHaveLength(1);
  });
});
