import type { Format, Scenario } from './scenarios.ts';
import { requestInit } from './request.ts';

/**
 * One request per scenario and target before any load: a benchmark of error responses measures
 * nothing, and wrk only counts non-2xx statuses, not malformed bodies. Throws naming what is wrong.
 */
export async function checkAnswer(base: string, path: string, scenario: Scenario, format: Format, extraHeaders: Record<string, string> = {}): Promise<void> {
  const init = requestInit(scenario);
  const res = await fetch(base + path, { ...init, headers: { ...init.headers, ...extraHeaders }, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  const fail = (why: string) => {
    throw new Error(`${scenario.name}: ${base}${path}: ${why}\n${text.slice(0, 600)}`);
  };
  if (res.status !== 200) fail(`status ${res.status}`);
  const type = res.headers.get('content-type') ?? '';
  const sse = format.endsWith('-sse');
  if (sse !== type.startsWith('text/event-stream')) fail(`content-type ${type}`);
  const data = sse ? sseData(text) : [];
  switch (format) {
    case 'openai-list':
      if (!((JSON.parse(text) as { data?: unknown[] }).data?.length)) fail('no models listed');
      break;
    case 'anthropic-json': {
      const msg = JSON.parse(text) as { type?: string; content?: Array<{ text?: string }>; usage?: { output_tokens?: number } };
      if (msg.type !== 'message' || !msg.content?.[0]?.text || !msg.usage?.output_tokens) fail('not a complete Anthropic message');
      break;
    }
    case 'anthropic-sse': {
      const events = [...text.matchAll(/^event: (\S+)/gm)].map((m) => m[1]);
      const deltas = events.filter((e) => e === 'content_block_delta').length;
      if (events[0] !== 'message_start' || events.at(-1) !== 'message_stop' || deltas < 20) fail(`event sequence ${events.join(',')}`);
      break;
    }
    case 'gemini-json': {
      const r = JSON.parse(text) as { candidates?: Array<{ content?: { parts?: Array<{ text?: string }> }; finishReason?: string }> };
      if (!r.candidates?.[0]?.content?.parts?.[0]?.text || r.candidates[0].finishReason !== 'STOP') fail('not a complete Gemini response');
      break;
    }
    case 'gemini-sse': {
      const chunks = data.map((d) => JSON.parse(d) as { candidates?: Array<{ finishReason?: string }>; usageMetadata?: unknown });
      const last = chunks.at(-1);
      if (chunks.length < 20 || last?.candidates?.[0]?.finishReason !== 'STOP' || !last.usageMetadata) fail(`${chunks.length} chunks, last without STOP/usage`);
      break;
    }
    case 'openai-json': {
      const r = JSON.parse(text) as { choices?: Array<{ message?: { content?: string } }> };
      if (!r.choices?.[0]?.message?.content) fail('not a chat.completion');
      break;
    }
    case 'openai-sse':
      if (data.at(-1) !== '[DONE]' || data.length < 25) fail('no [DONE] or too few chunks');
      break;
  }
}

function sseData(text: string): string[] {
  return [...text.matchAll(/^data: ?(.*?)\r?$/gm)].map((m) => m[1]!);
}
