import { describe, expect, it } from 'vitest';
import { writeGeminiGrounding } from '../../../../core/families/gemini/write-grounding.ts';
import type { GatewayError } from '../../../../core/errors.ts';
import type { ChatRequest, Part, ProviderTool } from '../../../../core/ir.ts';
import { writeAnthropicRequest } from '../../../../core/upstreams/anthropic/write-request.ts';
import { writeBedrockInvokeBody } from '../../../../core/upstreams/bedrock/write-invoke.ts';

/** Gemini's Google Search on a Claude model: the Claude API's web search out, its blocks back as grounding. */

const config = { type: 'anthropic' as const, baseUrl: 'https://api.anthropic.com', apiKey: 'sk-gateway', version: '2023-06-01' as const };
const googleSearch = (options: Record<string, unknown> = {}, name = 'googleSearch'): ProviderTool => ({ type: 'provider', origin: 'gemini', name, definition: { [name]: options } });
const chat = (tools: ProviderTool[]): ChatRequest => ({
  model: 'claude-sonnet-4-6',
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'who won euro 2024' }] }],
  stream: false,
  maxTokens: 1000,
  tools,
  source: { family: 'gemini', extra: {} },
});
const toolsSent = (tools: ProviderTool[]) => JSON.parse(writeAnthropicRequest(chat(tools), config, () => {}).body as string).tools;

function refusal(run: () => unknown): { message: string; param?: string } {
  try {
    run();
  } catch (err) {
    return { message: (err as GatewayError).message, param: (err as GatewayError).opts.param };
  }
  throw new Error('expected a refusal');
}

describe('googleSearch to a Claude model', () => {
  it('is the dated web search tool; excludeDomains (either spelling) are blocked domains', () => {
    expect(toolsSent([googleSearch()])).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
    expect(toolsSent([googleSearch({ excludeDomains: ['example.com'] })])).toEqual([{ type: 'web_search_20250305', name: 'web_search', blocked_domains: ['example.com'] }]);
    expect(toolsSent([googleSearch({ exclude_domains: [] }, 'google_search')])).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
  });

  it('an option Claude cannot apply is refused, naming it; Bedrock, which runs no web search, still refuses the tool', () => {
    expect(refusal(() => toolsSent([googleSearch({ timeRangeFilter: { startTime: '2024-07-01T00:00:00Z' } })]))).toEqual({
      message: "tools.0.googleSearch.timeRangeFilter: Claude's web search has no such option",
      param: 'tools.0.googleSearch.timeRangeFilter',
    });
    expect(refusal(() => writeBedrockInvokeBody(chat([googleSearch()]), () => {})).message).toBe('tools.0: the gemini tool "googleSearch" is not available on an Anthropic upstream');
  });
});

describe('a Claude web search in an answer, as Gemini grounding', () => {
  const result = (url: string, title: string) => ({ type: 'web_search_result', url, title, encrypted_content: 'Eq', page_age: null });
  const cite = (url: string, title: string) => ({ type: 'web_search_result_location', url, title, cited_text: 'x', encrypted_index: 'Eo' });

  it('thoughts are not counted in the offsets, pages are listed once, a page only cited is added, an untitled one named by its url', () => {
    const parts: Part[] = [
      { type: 'reasoning', text: 'I should search first.' },
      { type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'euro 2024' } } },
      { type: 'raw', origin: 'anthropic', block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [result('https://a.example', 'A'), result('https://a.example', 'A again')] } },
      { type: 'text', text: 'Ünïcode first', citations: [cite('https://a.example', 'A'), cite('https://b.example', ''), cite('https://a.example', 'A')] },
      { type: 'text', text: ' then plain.' },
    ];
    expect(writeGeminiGrounding(parts)).toEqual({
      webSearchQueries: ['euro 2024'],
      groundingChunks: [{ web: { uri: 'https://a.example', title: 'A' } }, { web: { uri: 'https://b.example', title: 'https://b.example' } }],
      groundingSupports: [{ segment: { endIndex: 15, text: 'Ünïcode first' }, groundingChunkIndices: [0, 1] }],
    });
  });

  it('no search blocks, no grounding (document citations stay Claude\'s); a failed search still reports its query', () => {
    expect(writeGeminiGrounding([{ type: 'text', text: 'Hi', citations: [{ type: 'char_location', cited_text: 'x' }] }])).toBeUndefined();
    const failed: Part[] = [
      { type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_2', name: 'web_search', input: { query: 'q' } } },
      { type: 'raw', origin: 'anthropic', block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_2', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } } },
    ];
    expect(writeGeminiGrounding(failed)).toEqual({ webSearchQueries: ['q'], groundingChunks: [] });
  });
});
