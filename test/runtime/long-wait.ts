import Anthropic from '@anthropic-ai/sdk';
import { Agent, fetch as undiciFetch } from 'undici';
import { expect } from 'vitest';
import type { GatewayConfigInput } from '../../core/index.ts';
import { startFakeUpstream, sleep, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { TEST_KEY } from '../helpers/gateway.ts';
import { loadJsonFixture } from '../helpers/streams.ts';
import { runtimeConfig } from './suite.ts';

/**
 * A provider that takes `waitMs` to answer a JSON call, and sends a stream's headers at once, its
 * first events `waitMs` later and the rest `waitMs` after them: what a model that thinks for a
 * while looks like. The runtimes' own idle limits must not cut either (README: long waits).
 */
export function startSlowUpstream(waitMs: number): Promise<FakeUpstream> {
  const wire = (chunks: string[]) => chunks.map((data) => `event: ${JSON.parse(data).type}\ndata: ${data}\n\n`).join('');
  return startFakeUpstream(async (req) => {
    if (!req.json?.stream) {
      await sleep(waitMs);
      return { body: loadJsonFixture('anthropic/upstream-message.json') };
    }
    const head = wire([
      '{"type":"message_start","message":{"id":"msg_quiet","type":"message","role":"assistant","model":"claude-upstream-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}',
      '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    ]);
    const tail = wire([
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"after a long think"}}',
      '{"type":"content_block_stop","index":0}',
      '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}',
      '{"type":"message_stop"}',
    ]);
    return { headers: { 'content-type': 'text/event-stream' }, chunks: [head, tail], delayMs: waitMs };
  });
}

/** The runtime suite's configuration with the provider's header time-out above `waitMs`. */
export function slowConfig(upstreamUrl: string, waitMs: number): GatewayConfigInput {
  const config = runtimeConfig(upstreamUrl);
  const providers = config.providers as Record<string, { timeoutMs?: number }>;
  for (const provider of Object.values(providers)) provider.timeoutMs = Math.max(600_000, waitMs + 60_000);
  return config;
}

/** What the SDK must get through a gateway at `baseUrl` from startSlowUpstream. */
export async function expectSlowAnswers(baseUrl: string, kind: 'json' | 'stream'): Promise<void> {
  // The client's own limits must not end the wait first: Node's fetch gives up after 300 s of
  // waiting for headers, or of a quiet body.
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  const fetch = ((url: string, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as typeof globalThis.fetch;
  const client = new Anthropic({ apiKey: TEST_KEY, baseURL: `${baseUrl}/api/anthropic`, maxRetries: 0, timeout: 3_600_000, fetch });
  try {
    if (kind === 'json') {
      const message = await client.messages.create({ model: 'acme.claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
      expect(message.type).toBe('message');
      expect(message.content).toContainEqual(expect.objectContaining({ type: 'text', text: 'Let me check.' }));
      return;
    }
    const message = await client.messages.stream({ model: 'acme.claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'think' }] }).finalMessage();
    expect(message.content).toMatchObject([{ type: 'text', text: 'after a long think' }]);
    expect(message.usage.output_tokens).toBe(5);
  } finally {
    await agent.close();
  }
}
