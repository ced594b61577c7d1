import { describe, expect, it } from 'vitest';
import type { GatewayError } from '../../../../core/errors.ts';
import type { ChatRequest, Message, ProviderTool } from '../../../../core/ir.ts';
import { GeminiChunkTemplate } from '../../../../core/upstreams/gemini/chunk-template.ts';
import type { GeminiProviderConfig } from '../../../../core/upstreams/gemini/endpoint.ts';
import { readGeminiResponse } from '../../../../core/upstreams/gemini/read-response.ts';
import { readGeminiStream } from '../../../../core/upstreams/gemini/read-stream.ts';
import { writeGeminiRequest } from '../../../../core/upstreams/gemini/write-request.ts';
import { collect, fromArray, plainEvents } from '../../../helpers/streams.ts';

/** Anthropic's web search server tool on a Gemini model: Google Search out, grounding back as Anthropic's blocks. */

const config: GeminiProviderConfig = { type: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com/', apiKey: 'AIzaTEST', apiVersion: 'v1beta' };
const search = (definition: Record<string, unknown> = {}): ProviderTool => ({ type: 'provider', origin: 'anthropic', name: 'web_search', definition: { type: 'web_search_20250305', name: 'web_search', ...definition } });
const weather = { type: 'function' as const, name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } };

function chat(over: Partial<ChatRequest>): ChatRequest {
  return { model: 'gemini-2.5-flash', system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'Who won Euro 2024?' }] }], stream: false, source: { family: 'anthropic', extra: {} }, ...over };
}

function write(req: ChatRequest): { body: Record<string, unknown>; warnings: string[] } {
  const warnings: string[] = [];
  const wire = writeGeminiRequest(req, config, (m) => warnings.push(m));
  return { body: JSON.parse(wire.body as string), warnings };
}

function refusal(req: ChatRequest): { message: string; param?: string } {
  try {
    writeGeminiRequest(req, config, () => {});
  } catch (err) {
    return { message: (err as GatewayError).message, param: (err as GatewayError).opts.param };
  }
  throw new Error('expected a refusal');
}

const grounding = (queries: string[], sites: string[]) => ({
  webSearchQueries: queries,
  groundingChunks: sites.map((site) => ({ web: { uri: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${site}`, title: site } })),
  groundingSupports: [{ segment: { endIndex: 9, text: 'Spain won' }, groundingChunkIndices: [0] }],
});
const result = (site: string) => ({ type: 'web_search_result', url: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${site}`, title: site, encrypted_content: '', page_age: null });

describe('web search on a Gemini model: the request', () => {
  it('every dated web_search tool goes as one googleSearch beside the functions; max_uses and user_location are reported as not sent', () => {
    const out = write(chat({ tools: [weather, search({ max_uses: 3, user_location: { type: 'approximate', city: 'Berlin' } }), { ...search(), definition: { type: 'web_search_20260318', name: 'web_search' } }] }));
    expect(out.body.tools).toEqual([{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] }, { googleSearch: {} }]);
    expect(out.warnings).toEqual([
      'tools.1.max_uses: Gemini decides how many searches to run; the limit was not sent',
      "tools.1.user_location: Gemini's Google Search takes no location; it was not sent",
    ]);
  });

  it('a tool choice naming the search leaves it to the model (Gemini cannot be told to search); other choices stand', () => {
    const forced = write(chat({ tools: [weather, search()], toolChoice: { type: 'tool', name: 'web_search' } }));
    expect(forced.body.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(forced.warnings).toEqual(['tool_choice: Gemini cannot be made to search; "web_search" was offered and the model decides']);
    expect(write(chat({ tools: [search()], toolChoice: { type: 'tool', name: 'web_search' } })).body).not.toHaveProperty('toolConfig');
    expect(write(chat({ tools: [weather, search()], toolChoice: { type: 'tool', name: 'get_weather' } })).body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
  });

  it('a domain limit Google Search cannot apply is refused, naming the field; empty lists are no limit', () => {
    expect(refusal(chat({ tools: [search({ blocked_domains: ['example.com'] })] }))).toEqual({
      message: 'tools.0.blocked_domains: a Gemini model searches with Google Search, which cannot be limited by domain',
      param: 'tools.0.blocked_domains',
    });
    expect(write(chat({ tools: [search({ allowed_domains: [] })] })).body.tools).toEqual([{ googleSearch: {} }]);
    // A second web search tool is checked too, though one googleSearch serves both.
    expect(refusal(chat({ tools: [search(), search({ allowed_domains: ['uefa.com'] })] })).param).toBe('tools.1.allowed_domains');
  });

  it("an earlier search in the history is left out (its answer's text goes on); Claude's encrypted results are reported, Gemini's own are not", () => {
    const turn = (encrypted: string): Message => ({
      role: 'assistant',
      parts: [
        { type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'euro 2024' } } },
        { type: 'raw', origin: 'anthropic', block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ ...result('uefa.com'), encrypted_content: encrypted }] } },
        { type: 'text', text: 'Spain won.', citations: [{ type: 'web_search_result_location', url: 'https://uefa.com', title: 'uefa.com', cited_text: 'Spain', encrypted_index: 'x' }] },
      ],
    });
    const messages = (encrypted: string): Message[] => [chat({}).messages[0]!, turn(encrypted), { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] }];
    const ours = write(chat({ messages: messages('') }));
    expect(ours.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Who won Euro 2024?' }] },
      { role: 'model', parts: [{ text: 'Spain won.' }] },
      { role: 'user', parts: [{ text: 'Thanks' }] },
    ]);
    expect(ours.warnings).toEqual([]);
    const claudes = write(chat({ messages: messages('EqgfCioIARgB') }));
    expect(claudes.body.contents).toEqual(ours.body.contents);
    expect(claudes.warnings).toEqual(["messages.1.parts.1: Claude's encrypted web search results were left out; the answer's text that follows them was sent"]);
    // Any other server tool's blocks are still refused.
    const other: Message = { role: 'assistant', parts: [{ type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_2', name: 'code_execution', input: {} } }] };
    expect(refusal(chat({ messages: [chat({}).messages[0]!, other] })).message).toBe('messages.1.parts.0: the anthropic "server_tool_use" block cannot be sent to a Gemini model');
  });
});

describe('web search on a Gemini model: the answer', () => {
  const body = {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Spain won Euro 2024.' }] }, finishReason: 'STOP', index: 0, groundingMetadata: grounding(['euro 2024 winner'], ['uefa.com']) }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, toolUsePromptTokenCount: 40 },
    responseId: 'r-1/x',
  };

  it('JSON: the search leads the answer, its id made of the response id in Anthropic\'s pattern; searches counted', () => {
    const read = readGeminiResponse(body, { model: 'gemini-2.5-flash', webSearch: true });
    expect(read.parts).toEqual([
      { type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_r_1_x', name: 'web_search', input: { query: 'euro 2024 winner' }, caller: { type: 'direct' } } },
      { type: 'raw', origin: 'anthropic', block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_r_1_x', content: [result('uefa.com')] } },
      { type: 'text', text: 'Spain won Euro 2024.' },
    ]);
    expect(read.usage).toEqual({ inputTokens: 50, outputTokens: 5, webSearchRequests: 1 });
  });

  it('JSON: grounding the client did not ask for as web search (a Gemini-family client) is not written as Anthropic blocks', () => {
    const read = readGeminiResponse(body, { model: 'gemini-2.5-flash' });
    expect(read.parts).toEqual([{ type: 'text', text: 'Spain won Euro 2024.' }]);
    expect(read.usage).not.toHaveProperty('webSearchRequests');
  });

  const sse = (chunks: unknown[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('');
  const chunk = (text: string, extra: Record<string, unknown> = {}) => ({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...extra }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2 }, responseId: 'r2' });
  const stream = async (text: string, webSearch: boolean) =>
    plainEvents(await collect(fromArray([new TextEncoder().encode(text)]).pipeThrough(readGeminiStream({ provider: 'google', model: 'gemini-2.5-flash', webSearch }))));

  it('stream: grounding sent early and again with more later is merged, and the search follows the text at the end', async () => {
    const events = await stream(
      sse([
        chunk('Spain', { groundingMetadata: { webSearchQueries: ['euro 2024 winner'] } }),
        chunk(' won.'),
        chunk('', { finishReason: 'STOP', groundingMetadata: grounding(['euro 2024 winner', 'euro 2024 final'], ['uefa.com', 'uefa.com', 'bbc.co.uk']) }),
      ]),
      true,
    );
    expect(events.slice(1)).toEqual([
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Spain' },
      { type: 'text-delta', index: 0, text: ' won.' },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_r2', name: 'web_search', input: {}, caller: { type: 'direct' } } } },
      { type: 'tool-input-delta', index: 1, json: '{"query":"euro 2024 winner"}' },
      { type: 'block-end', index: 1 },
      { type: 'block-start', index: 2, block: { type: 'raw', origin: 'anthropic', block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_r2', content: [result('uefa.com'), result('bbc.co.uk')] } } },
      { type: 'block-end', index: 2 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 10, outputTokens: 2, webSearchRequests: 2 } },
    ]);
  });

  it('stream: without the web search ask, or without any search, no search blocks', async () => {
    const grounded = sse([chunk('Spain won.', { finishReason: 'STOP', groundingMetadata: grounding(['q'], ['uefa.com']) })]);
    expect((await stream(grounded, false)).map((e) => (e as { type: string }).type)).toEqual(['start', 'block-start', 'text-delta', 'block-end', 'finish']);
    const ungrounded = sse([chunk('Spain won.', { finishReason: 'STOP', groundingMetadata: { searchEntryPoint: { renderedContent: '<div></div>' } } })]);
    expect((await stream(ungrounded, true)).map((e) => (e as { type: string }).type)).toEqual(['start', 'block-start', 'text-delta', 'block-end', 'finish']);
  });

  it('a text chunk carrying grounding never becomes a chunk template (its offsets are integers a match would skip)', () => {
    const grounded = chunk('Spain', { groundingMetadata: grounding(['q'], ['uefa.com']) });
    expect(GeminiChunkTemplate.learn(JSON.stringify(grounded), grounded)).toBeUndefined();
    const plain = chunk('Spain');
    expect(GeminiChunkTemplate.learn(JSON.stringify(plain), plain)).toBeDefined();
  });
});
