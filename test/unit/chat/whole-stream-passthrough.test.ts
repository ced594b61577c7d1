import { describe, expect, it } from 'vitest';
import { createMemoryLimiter } from '../../../core/accounting/memory-limiter.ts';
import { createMeter } from '../../../core/accounting/meter.ts';
import type { UsageRecord } from '../../../core/accounting/types.ts';
import { createGateway, Reply, replyToResponse, type UpstreamFetch, type UpstreamResponse } from '../../../core/index.ts';
import { TEST_KEY, testConfig } from '../../helpers/gateway.ts';

const WIRE =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-up","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"cache_read_input_tokens":4,"output_tokens":1}}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n' +
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}\n\n' +
  'event: message_stop\ndata: {"type":"message_stop"}\n\n';

/** An upstream answer as the adapters' clients give it; `whole` offers the body at once, as one that has all arrived. */
function answer(whole: boolean): UpstreamResponse {
  const response = new Response(WIRE, { headers: { 'content-type': 'text/event-stream' } });
  const bytes = new TextEncoder().encode(WIRE);
  return Object.assign(response, whole ? { takeWhole: () => bytes } : {});
}

function gatewayWith(whole: boolean) {
  const records: UsageRecord[] = [];
  const meter = createMeter({ limiter: createMemoryLimiter(), usage: { add: (record) => void records.push(record), flush: async () => {} }, prices: {} });
  const fetch: UpstreamFetch = async () => answer(whole);
  const gateway = createGateway(
    testConfig({ providers: { claude: { type: 'anthropic', baseUrl: 'http://claude.invalid', apiKey: 'sk-ant' } }, models: [{ id: 'claude-test', routes: [{ provider: 'claude', model: 'claude-up' }] }] }),
    { fetch, meter, log: () => {} },
  );
  const ask = () =>
    gateway.reply(
      new Request('http://gw.test/api/anthropic/v1/messages', {
        method: 'POST',
        headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'acme.claude-test', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
      }),
    );
  return { records, ask };
}

describe('a relayed stream that has all arrived with its headers', () => {
  it('goes on as its bytes, settled at once with the usage of its head and tail', async () => {
    const { records, ask } = gatewayWith(true);
    const reply = (await ask()) as Reply;
    expect(reply).toBeInstanceOf(Reply);
    expect(reply.body).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(reply.body as Uint8Array)).toBe(WIRE);
    expect(reply.streaming).toBe(true);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ model: 'claude-test', inputTokens: 21, cacheReadTokens: 4, outputTokens: 9, aborted: false });
  });

  it('without the client offering it whole, goes through the tap and is settled once read', async () => {
    const { records, ask } = gatewayWith(false);
    const reply = (await ask()) as Reply;
    expect(reply.body).not.toBeInstanceOf(Uint8Array);
    expect(records).toHaveLength(0);
    expect(await replyToResponse(reply).text()).toBe(WIRE);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ inputTokens: 21, cacheReadTokens: 4, outputTokens: 9, aborted: false });
  });
});
