import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, sseChunks, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';
import { bytesInPieces, loadFixture, loadJsonFixture } from '../helpers/streams.ts';

/**
 * The official Anthropic SDKs (1.x and 0.x) against the Claude-style front door, with Gemini
 * models behind it on a fake Gemini API over real HTTP: Messages ↔ generateContent translation,
 * function-call ids, thought signatures, tool-schema rewriting, finish reasons and usage.
 */

type AnyClient = InstanceType<typeof Anthropic1>;
type Block = Record<string, unknown> & { type: string };
const SDKS: Array<[string, new (opts: Record<string, unknown>) => unknown]> = [
  ['@anthropic-ai/sdk 1.x', Anthropic1 as never],
  ['@anthropic-ai/sdk 0.x', Anthropic0 as never],
];

const FLASH = 'acme.gemini-flash';
const PRO3 = 'acme.gemini-3-pro';
const UPSTREAM_KEY = 'gm-upstream-key';
const weatherTool = { name: 'get_weather', description: 'Current weather for a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };
const weatherDeclarations = [{ functionDeclarations: [{ name: 'get_weather', description: 'Current weather for a city', parameters: weatherTool.input_schema }] }];

let gemini: FakeUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  gemini = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({
      providers: { gem: { type: 'gemini', baseUrl: gemini.url, apiKey: UPSTREAM_KEY } },
      models: [
        { id: 'gemini-flash', routes: [{ provider: 'gem', model: 'gemini-2.5-flash' }] },
        { id: 'gemini-3-pro', routes: [{ provider: 'gem', model: 'gemini-3-pro-preview' }] },
      ],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await gemini.close();
});
beforeEach(() => {
  gemini.requests.length = 0;
  gemini.reply(() => ({ status: 500, body: { error: { code: 500, message: 'no reply set for this test', status: 'INTERNAL' } } }));
});

const fixture = (name: string) => loadFixture(`contract/gemini-family/${name}`);
const jsonFixture = (name: string) => loadJsonFixture(`contract/gemini-family/${name}`);
const sse = (name: string): FakeReply => ({ chunks: sseChunks(fixture(name)), delayMs: 1 });
const json = (name: string): FakeReply => ({ body: jsonFixture(name) });

describe.each(SDKS)('%s against a Gemini model', (_name, Client) => {
  const client = () => new Client({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 }) as AnyClient;

  it('messages.create: generateContent body upstream with the Gemini key, Messages answer back', async () => {
    gemini.reply(() => json('gemini-text.json'));
    const message = await client().messages.create({
      model: FLASH,
      max_tokens: 256,
      system: 'Be brief.',
      stop_sequences: ['END'],
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
    });
    expect(message).toEqual({
      id: 'msg_Il0taoSYJ5Cez7kPqI6Y0Q0',
      type: 'message',
      role: 'assistant',
      model: FLASH,
      // Gemini 2.5 signed the answer text: the signature follows it in an empty thinking block.
      content: [
        { type: 'text', text: 'Paris is the capital of France.', citations: null },
        { type: 'thinking', thinking: '', signature: 'sy1.gemini.CiIBVKhc7oR2Ww==' },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
      // Gemini's thoughts are billed output: 7 visible + 31 thinking.
      usage: { input_tokens: 9, output_tokens: 38, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    const seen = gemini.requests[0]!;
    expect(seen.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(seen.headers['x-goog-api-key']).toBe(UPSTREAM_KEY);
    expect(JSON.stringify(seen.headers)).not.toContain(TEST_KEY);
    expect(seen.json).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'What is the capital of France?' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { maxOutputTokens: 256, stopSequences: ['END'] },
    });
  });

  it('messages.stream().finalMessage() over :streamGenerateContent?alt=sse', async () => {
    gemini.reply(() => sse('gemini-text.sse'));
    const stream = client().messages.stream({ model: FLASH, max_tokens: 256, messages: [{ role: 'user', content: 'Capital of France?' }] });
    const deltas: string[] = [];
    stream.on('text', (text) => deltas.push(text));
    const final = await stream.finalMessage();
    expect(deltas).toEqual(['The capital', ' of France is', ' Paris.']);
    expect(final.content).toEqual([{ type: 'text', text: 'The capital of France is Paris.' }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject({ input_tokens: 8, output_tokens: 32 });
    expect(gemini.requests[0]!.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it('Gemini\'s own CRLF framing, cut into arbitrary byte pieces on the wire, still reads as one message', async () => {
    gemini.reply(() => ({ chunks: bytesInPieces(loadFixture('gemini/upstream-text.sse'), 7) }));
    const final = await client().messages.stream({ model: FLASH, max_tokens: 256, messages: [{ role: 'user', content: 'Capital of France?' }] }).finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'The capital of France is Paris.' }]);
    expect(final.usage).toMatchObject({ input_tokens: 8, output_tokens: 32 });
  });

  it('tool use round trip without Gemini ids: synthetic tool_use id out, functionResponse by name back (no id)', async () => {
    gemini.reply(() => json('gemini-function-call.json'));
    const question = { role: 'user' as const, content: 'Weather in Paris?' };
    const first = await client().messages.create({ model: FLASH, max_tokens: 1024, tools: [weatherTool], messages: [question] });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((b) => b.type === 'tool_use') as { id: string };
    expect(toolUse.id).toMatch(/^gx_[A-Za-z0-9_-]+$/);
    expect(first.content).toEqual([
      // The call's thoughtSignature rides in an empty thinking block just before it.
      { type: 'thinking', thinking: '', signature: 'sy1.gemini.CiwBVKhc7sig2A==' },
      { type: 'tool_use', id: toolUse.id, name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(gemini.requests[0]!.json.tools).toEqual(weatherDeclarations);

    gemini.reply(() => json('gemini-text.json'));
    await client().messages.create({
      model: FLASH,
      max_tokens: 1024,
      tools: [weatherTool],
      messages: [
        question,
        { role: 'assistant', content: first.content as never },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '18°C, sunny' }] },
      ],
    });
    expect(gemini.requests[1]!.json.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiwBVKhc7sig2A==' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '18°C, sunny' } } }] },
    ]);
  });

  it('thinking round trip (Gemini 2.5, streamed): thought text → thinking, the call signature goes back on the functionCall', async () => {
    gemini.reply(() => sse('gemini-thinking-call.sse'));
    const question = { role: 'user' as const, content: 'Weather in Paris?' };
    const request = { model: FLASH, max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, tools: [weatherTool] };
    const final = await client().messages.stream({ ...request, messages: [question] }).finalMessage();
    expect(gemini.requests[0]!.json.generationConfig).toEqual({ maxOutputTokens: 4096, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } });
    const toolUse = final.content.at(-1) as { id: string };
    expect(final.content).toEqual([
      { type: 'thinking', thinking: '**Looking up the weather**\n\nThe user wants the weather in Paris.', signature: '' },
      { type: 'thinking', thinking: '', signature: 'sy1.gemini.CiwBVKhc7sig2A==' },
      { type: 'tool_use', id: toolUse.id, name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(final.stop_reason).toBe('tool_use');
    expect(final.usage).toMatchObject({ input_tokens: 40, output_tokens: 70 });

    gemini.reply(() => json('gemini-text.json'));
    await client().messages.create({
      ...request,
      messages: [
        question,
        { role: 'assistant', content: final.content as never },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '18°C, sunny' }] },
      ],
    });
    // Thought summaries cannot be sent back to Gemini; the signature goes back exactly where it came.
    expect(gemini.requests[1]!.json.contents[1]).toEqual({
      role: 'model',
      parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiwBVKhc7sig2A==' }],
    });
  });

  it('Gemini 3 parallel calls with ids: ids echoed, only the first call carries the signature, results matched by id', async () => {
    gemini.reply(() => sse('gemini-3-parallel-calls.sse'));
    const question = { role: 'user' as const, content: 'Weather in Paris and London?' };
    const final = await client().messages.stream({ model: PRO3, max_tokens: 2048, tools: [weatherTool], messages: [question] }).finalMessage();
    expect(final.content.slice(1)).toEqual([
      { type: 'thinking', thinking: '', signature: 'sy1.gemini.CscBAdHtim8sigA==' },
      { type: 'tool_use', id: 'p8vx3k2a', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'q1mz7d4b', name: 'get_weather', input: { city: 'London' } },
    ]);
    expect(final.content[0]).toMatchObject({ type: 'thinking', thinking: "**Checking both cities**\n\nI'll look up Paris and London." });

    gemini.reply(() => json('gemini-text.json'));
    const { response } = await client()
      .messages.create({
        model: PRO3,
        max_tokens: 2048,
        tools: [weatherTool],
        messages: [
          question,
          { role: 'assistant', content: final.content as never },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'p8vx3k2a', content: 'Paris: 18°C' },
              { type: 'tool_result', tool_use_id: 'q1mz7d4b', content: 'London: service timed out', is_error: true },
            ],
          },
        ],
      })
      .withResponse();
    const [, model, results] = gemini.requests[1]!.json.contents;
    expect(model).toEqual({
      role: 'model',
      parts: [
        { functionCall: { id: 'p8vx3k2a', name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CscBAdHtim8sigA==' },
        { functionCall: { id: 'q1mz7d4b', name: 'get_weather', args: { city: 'London' } } },
      ],
    });
    expect(results).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'p8vx3k2a', name: 'get_weather', response: { output: 'Paris: 18°C' } } },
        { functionResponse: { id: 'q1mz7d4b', name: 'get_weather', response: { error: 'London: service timed out' } } },
      ],
    });
    expect(response.headers.get('x-switchyard-warnings') ?? '').not.toContain('skip_thought_signature_validator');
  });

  it('Gemini 3 text answer: thought summary → thinking, the visible text replays as one model part', async () => {
    gemini.reply(() => sse('gemini-3-text-signature.sse'));
    const question = { role: 'user' as const, content: 'Capital of France, one word?' };
    const final = await client().messages.stream({ model: PRO3, max_tokens: 1024, messages: [question] }).finalMessage();
    expect(final.content.filter((b) => b.type === 'text')).toEqual([{ type: 'text', text: 'Paris, of course.' }]);

    gemini.reply(() => json('gemini-text.json'));
    await client().messages.create({ model: PRO3, max_tokens: 1024, messages: [question, { role: 'assistant', content: final.content as never }, { role: 'user', content: 'Thanks!' }] });
    expect(final.content[0]).toMatchObject({ type: 'thinking', thinking: '**Weighing the question**\n\nThe user wants a one-word answer.' });
    expect(gemini.requests[1]!.json.contents[1].parts[0]).toEqual({ text: 'Paris, of course.' });
  });

  it('Gemini 3: a turn-closing signature on an empty part comes back as the same trailing part', async () => {
    gemini.reply(() => json('gemini-3-text-signature.json'));
    const question = { role: 'user' as const, content: 'Capital of France, one word?' };
    const first = await client().messages.create({ model: PRO3, max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [question] });
    // A text block has no slot for the signature: an empty thinking block right after it carries it.
    expect(first.content).toEqual([
      { type: 'thinking', thinking: '**Weighing the question**\n\nThe user wants a one-word answer.', signature: '' },
      { type: 'text', text: 'Paris, of course.', citations: null },
      { type: 'thinking', thinking: '', signature: 'sy1.gemini.EpsBCpgBAdHtim9==' },
    ]);

    gemini.reply(() => json('gemini-text.json'));
    await client().messages.create({ model: PRO3, max_tokens: 1024, messages: [question, { role: 'assistant', content: first.content as never }, { role: 'user', content: 'Thanks!' }] });
    // The thought summary cannot go back; the signature goes back on the trailing empty part, as Gemini sent it.
    expect(gemini.requests[1]!.json.contents).toEqual([
      { role: 'user', parts: [{ text: 'Capital of France, one word?' }] },
      { role: 'model', parts: [{ text: 'Paris, of course.' }, { text: '', thoughtSignature: 'EpsBCpgBAdHtim9==' }] },
      { role: 'user', parts: [{ text: 'Thanks!' }] },
    ]);
  });

  it('Gemini 3 streamed: the grammar stays exact, and a message never ends on a signature carrier', async () => {
    gemini.reply(() => sse('gemini-3-text-signature.sse'));
    const stream = client().messages.stream({ model: PRO3, max_tokens: 1024, messages: [{ role: 'user', content: 'Capital of France, one word?' }] });
    const events: Array<{ type: string; index?: number; delta?: { type: string } }> = [];
    stream.on('streamEvent', (event) => events.push(event as never));
    const final = await stream.finalMessage();
    // Claude Code prints the last block's text as the answer of `claude -p`: a trailing empty
    // thinking block would blank it, so the turn-closing signature (which Gemini does not
    // validate) is not carried on streams.
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const grammar = events.map((e) => [e.type, e.index, e.type === 'content_block_delta' && e.delta?.type].filter((x) => x !== undefined && x !== false).join(':'));
    expect(grammar.filter((g, i) => g !== grammar[i - 1])).toEqual([
      'message_start',
      'content_block_start:0',
      'content_block_delta:0:thinking_delta',
      'content_block_stop:0',
      'content_block_start:1',
      'content_block_delta:1:text_delta',
      'content_block_stop:1',
      'message_delta',
      'message_stop',
    ]);
  });

  it('Gemini 3: a tool call Gemini never signed gets skip_thought_signature_validator (and the client is told), and no foreign ids go upstream; 2.5 gets no signature', async () => {
    const foreign = [
      { role: 'user' as const, content: 'Weather in Paris?' },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Checking.' }, { type: 'tool_use' as const, id: 'toolu_01Xy', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_01Xy', content: '18°C' }] },
    ];
    gemini.reply(() => json('gemini-text.json'));
    const { response } = await client().messages.create({ model: PRO3, max_tokens: 512, tools: [weatherTool], messages: foreign }).withResponse();
    expect(gemini.requests[0]!.json.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      // Gemini 3 rejects ids it did not issue: the call and its result pair by position instead.
      { role: 'model', parts: [{ text: 'Checking.' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '18°C' } } }] },
    ]);
    expect(response.headers.get('x-switchyard-warnings')).toContain('skip_thought_signature_validator');

    await client().messages.create({ model: FLASH, max_tokens: 512, tools: [weatherTool], messages: foreign });
    expect(gemini.requests[1]!.json.contents[1].parts[1]).toEqual({ functionCall: { name: 'get_weather', args: { city: 'Paris' } } });
  });

  it('images and PDFs become inlineData; tool_choice becomes functionCallingConfig', async () => {
    gemini.reply(() => json('gemini-text.json'));
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    await client().messages.create({
      model: FLASH,
      max_tokens: 256,
      tools: [weatherTool],
      tool_choice: { type: 'tool', name: 'get_weather' },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' } },
            { type: 'text', text: 'Where was this taken?' },
          ],
        },
      ],
    });
    expect(gemini.requests[0]!.json.contents).toEqual([
      {
        role: 'user',
        parts: [{ inlineData: { mimeType: 'image/png', data: png } }, { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0xLjQK' } }, { text: 'Where was this taken?' }],
      },
    ]);
    expect(gemini.requests[0]!.json.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
  });

  it('tool schemas are rewritten into what Gemini accepts, and every change is reported', async () => {
    gemini.reply(() => json('gemini-text.json'));
    const fetchTool = {
      name: 'fetch_page',
      description: 'Fetch a web page',
      input_schema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object' as const,
        properties: {
          url: { type: 'string', format: 'uri', description: 'Page to fetch' },
          since: { type: 'string', format: 'date-time' },
          retries: { type: 'integer', default: 3, minimum: 0 },
          label: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          options: { type: 'object', properties: { raw: { type: 'boolean' } }, additionalProperties: false },
        },
        required: ['url'],
        additionalProperties: false,
      },
    };
    const { response } = await client().messages.create({ model: FLASH, max_tokens: 256, tools: [fetchTool], messages: [{ role: 'user', content: 'Fetch example.com' }] }).withResponse();
    expect(gemini.requests[0]!.json.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'fetch_page',
            description: 'Fetch a web page',
            parameters: {
              type: 'object',
              properties: {
                url: { type: 'string', description: 'Page to fetch' },
                since: { type: 'string', format: 'date-time' },
                retries: { type: 'integer', minimum: 0 },
                label: { nullable: true, type: 'string' },
                options: { type: 'object', properties: { raw: { type: 'boolean' } } },
              },
              required: ['url'],
            },
          },
        ],
      },
    ]);
    const warnings = response.headers.get('x-switchyard-warnings') ?? '';
    expect(warnings).toContain('tool "fetch_page" schema rewritten for Gemini');
    for (const change of [
      '(root): removed "$schema"',
      'properties.url: removed unsupported format "uri"',
      'properties.retries: removed "default"',
      'properties.label: "anyOf" with "null" rewritten as nullable',
      'properties.options: removed "additionalProperties"',
      '(root): removed "additionalProperties"',
    ]) {
      expect(warnings).toContain(change);
    }
    expect(warnings).not.toContain('date-time');
  });

  it('finish reasons: SAFETY → refusal (streamed), MAX_TOKENS → max_tokens, a blocked prompt → refusal with no content', async () => {
    gemini.reply(() => sse('gemini-safety.sse'));
    const refused = await client().messages.stream({ model: FLASH, max_tokens: 256, messages: [{ role: 'user', content: 'How do I …' }] }).finalMessage();
    expect(refused.stop_reason).toBe('refusal');
    expect(refused.content).toEqual([{ type: 'text', text: 'Here is how' }]);

    gemini.reply(() => json('gemini-max-tokens.json'));
    const cut = await client().messages.create({ model: FLASH, max_tokens: 10, messages: [{ role: 'user', content: 'Tell me a story' }] });
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.content).toEqual([{ type: 'text', text: 'Once upon a time, in a land far', citations: null }]);
    expect(cut.usage).toEqual({ input_tokens: 6, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

    gemini.reply(() => json('gemini-prompt-blocked.json'));
    const blocked = await client().messages.create({ model: FLASH, max_tokens: 10, messages: [{ role: 'user', content: 'Something blocked' }] });
    expect(blocked.stop_reason).toBe('refusal');
    expect(blocked.content).toEqual([]);
    expect(blocked.usage).toMatchObject({ input_tokens: 9, output_tokens: 0 });
  });

  it("finish reasons new in @google/genai 3.3's enum: MODEL_ARMOR → refusal, CONTINUATION → max_tokens, MISSING_THOUGHT_SIGNATURE → end_turn", async () => {
    // The recorded answers above, ending for the newer reasons.
    const safety = fixture('gemini-safety.sse');
    gemini.reply(() => ({ chunks: sseChunks(safety.replace('"finishReason":"SAFETY"', '"finishReason":"MODEL_ARMOR"')), delayMs: 1 }));
    const armored = await client().messages.stream({ model: FLASH, max_tokens: 256, messages: [{ role: 'user', content: 'How do I …' }] }).finalMessage();
    expect(armored.stop_reason).toBe('refusal');
    expect(armored.content).toEqual([{ type: 'text', text: 'Here is how' }]);

    const cut = jsonFixture('gemini-max-tokens.json');
    gemini.reply(() => ({ body: { ...cut, candidates: [{ ...cut.candidates[0], finishReason: 'CONTINUATION' }] } }));
    const continued = await client().messages.create({ model: FLASH, max_tokens: 10, messages: [{ role: 'user', content: 'Tell me a story' }] });
    expect(continued.stop_reason).toBe('max_tokens');
    expect(continued.content).toEqual([{ type: 'text', text: 'Once upon a time, in a land far', citations: null }]);

    gemini.reply(() => ({ chunks: sseChunks(safety.replace('"finishReason":"SAFETY"', '"finishReason":"MISSING_THOUGHT_SIGNATURE"')), delayMs: 1 }));
    const unsigned = await client().messages.stream({ model: FLASH, max_tokens: 256, messages: [{ role: 'user', content: 'How do I …' }] }).finalMessage();
    expect(unsigned.stop_reason).toBe('end_turn');
  });

  it('usage: cached prompt tokens are split out, thoughts count as output', async () => {
    gemini.reply(() => json('gemini-thinking-text.json'));
    const message = await client().messages.create({ model: FLASH, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Capital of France?' }] });
    expect(message.usage).toEqual({ input_tokens: 176, output_tokens: 49, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024 });
    const blocks = message.content as unknown as Block[];
    expect(blocks[0]).toEqual({ type: 'thinking', thinking: "**Recalling geography**\n\nFrance's capital is well known.", signature: '' });
    expect(blocks.filter((b) => b.type === 'text')).toEqual([{ type: 'text', text: 'Paris is the capital of France.', citations: null }]);
  });

  const webSearch = { type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 8 };
  const searchQuestion = { role: 'user' as const, content: 'Perform a web search for the query: who won euro 2024' };
  const searchResults = [
    { type: 'web_search_result', url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQHxK0mB3euro2024aljazeera', title: 'aljazeera.com', encrypted_content: '', page_age: null },
    { type: 'web_search_result', url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQG7cYw9euro2024uefa', title: 'uefa.com', encrypted_content: '', page_age: null },
  ];

  it("web search (Claude Code's WebSearch call): googleSearch upstream, the grounding back as server_tool_use and web_search_tool_result before the text", async () => {
    gemini.reply(() => json('gemini-web-search.json'));
    const { data: message, response } = await client()
      .messages.create({ model: FLASH, max_tokens: 1024, tools: [webSearch], tool_choice: { type: 'tool', name: 'web_search' }, messages: [searchQuestion] })
      .withResponse();
    expect(gemini.requests[0]!.json).toEqual({
      contents: [{ role: 'user', parts: [{ text: searchQuestion.content }] }],
      tools: [{ googleSearch: {} }],
      generationConfig: { maxOutputTokens: 1024 },
    });
    const id = 'srvtoolu_oV4taIWbJpGez7kP3_yJ4Qg';
    expect(message.content as unknown as Block[]).toEqual([
      { type: 'server_tool_use', id, name: 'web_search', input: { query: 'who won euro 2024' }, caller: { type: 'direct' } },
      // The page Gemini cited twice is listed once.
      { type: 'web_search_tool_result', tool_use_id: id, content: searchResults },
      { type: 'text', text: 'Spain won Euro 2024, defeating England 2-1 in the final in Berlin.', citations: null },
    ]);
    // Two queries ran; the search's own prompt tokens (toolUsePromptTokenCount) are billed input.
    expect(message.usage).toEqual({ input_tokens: 98, output_tokens: 44, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: { web_search_requests: 2 } });
    const warnings = response.headers.get('x-switchyard-warnings') ?? '';
    expect(warnings).toContain('tools.0.max_uses');
    expect(warnings).toContain('tool_choice: Gemini cannot be made to search');
  });

  it('web search streamed: the search blocks follow the text (grounding is complete only at the end), with the query as input_json_delta; the next turn sends Gemini the text alone', async () => {
    gemini.reply(() => sse('gemini-web-search.sse'));
    const stream = client().messages.stream({ model: FLASH, max_tokens: 1024, tools: [webSearch], messages: [searchQuestion] });
    const events: string[] = [];
    stream.on('streamEvent', (event) => events.push(event.type === 'content_block_delta' ? `${event.type}:${event.delta.type}` : event.type));
    const final = await stream.finalMessage();
    const id = 'srvtoolu_pF4taJ3nF5Cez7kP1aGw8Ak';
    expect(final.content as unknown as Block[]).toEqual([
      { type: 'text', text: 'Spain won Euro 2024, defeating England 2-1 in the final in Berlin.' },
      { type: 'server_tool_use', id, name: 'web_search', input: { query: 'who won euro 2024' }, caller: { type: 'direct' } },
      { type: 'web_search_tool_result', tool_use_id: id, content: searchResults },
    ]);
    expect(events.slice(-9)).toEqual([
      'content_block_delta:text_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta:input_json_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(final.usage).toMatchObject({ input_tokens: 98, output_tokens: 44, server_tool_use: { web_search_requests: 1 } });

    gemini.reply(() => sse('gemini-text.sse'));
    const { response } = await client()
      .messages.create({ model: FLASH, max_tokens: 1024, tools: [webSearch], messages: [searchQuestion, { role: 'assistant', content: final.content as never }, { role: 'user', content: 'Thanks!' }] })
      .withResponse()
      .catch(() => ({ response: undefined }));
    expect(gemini.requests[1]!.json.contents).toEqual([
      { role: 'user', parts: [{ text: searchQuestion.content }] },
      { role: 'model', parts: [{ text: 'Spain won Euro 2024, defeating England 2-1 in the final in Berlin.' }] },
      { role: 'user', parts: [{ text: 'Thanks!' }] },
    ]);
    expect(response?.headers.get('x-switchyard-warnings') ?? '').not.toContain('encrypted');
  });

  it("web search limited to domains is refused, naming the field: Google Search cannot apply the limit", async () => {
    const err = (await client()
      .messages.create({ model: FLASH, max_tokens: 1024, tools: [{ ...webSearch, allowed_domains: ['uefa.com'] }], messages: [searchQuestion] })
      .catch((e: unknown) => e)) as { status: number; error: { error: { type: string; message: string } } };
    expect(err.status).toBe(400);
    expect(err.error.error).toEqual({ type: 'invalid_request_error', message: 'tools.0.allowed_domains: a Gemini model searches with Google Search, which cannot be limited by domain' });
    expect(gemini.requests).toHaveLength(0);
  });

  it('count_tokens uses Gemini countTokens with the whole request', async () => {
    gemini.reply(() => json('gemini-count-tokens.json'));
    const { data, response } = await client()
      .messages.countTokens({ model: FLASH, system: 'Be brief.', tools: [weatherTool], messages: [{ role: 'user', content: 'Weather in Paris?' }] })
      .withResponse();
    expect(data.input_tokens).toBe(31);
    expect(response.headers.get('x-switchyard-token-count')).toBe('upstream');
    const seen = gemini.requests[0]!;
    expect(seen.url).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(seen.json).toEqual({
      generateContentRequest: {
        model: 'models/gemini-2.5-flash',
        contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        tools: weatherDeclarations,
      },
    });
  });

  /** A streamed message that fails: the texts that came before, and the error the stream ended with. */
  const streamToError = async (): Promise<{ texts: string[]; err: Error }> => {
    const stream = client().messages.stream({ model: FLASH, max_tokens: 100, messages: [{ role: 'user', content: 'Tell me a story' }] });
    const texts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    const err = (await stream.finalMessage().catch((e: unknown) => e)) as Error;
    return { texts, err };
  };

  it('Gemini errors arrive as the SDK error class: 429 with its retry delay, mid-stream 503 from the stream', async () => {
    gemini.reply(() => ({ status: 429, body: loadJsonFixture('gemini/upstream-error-429.json') }));
    const limited = (await client().messages.create({ model: FLASH, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as Error & { status: number; headers: Headers | Record<string, string> };
    expect(limited.constructor.name).toBe('RateLimitError');
    expect(limited.status).toBe(429);
    const headers = limited.headers;
    expect(headers instanceof Headers ? headers.get('retry-after') : headers['retry-after']).toBe('7');

    gemini.reply(() => sse('gemini-error-midstream.sse'));
    const { texts, err } = await streamToError();
    expect(texts).toEqual(['Once upon']);
    expect(err.constructor.name).toBe('APIError');
    expect(err.message).toContain('overloaded_error');
  });

  it('an upstream event that never ends is cut past 64 MiB: an error from the stream, the upstream call cancelled', async () => {
    const aborts = gemini.aborts;
    gemini.reply(() => ({ chunks: endlessEvent(), paced: true }));
    const { texts, err } = await streamToError();
    expect(texts).toEqual(['Once upon']);
    expect(err.constructor.name).toBe('APIError');
    expect(err.message).toContain('Upstream sent a stream event over 64 MiB');
    await gemini.waitForAborts(aborts + 1, 5000);
  }, 30_000);
});

/** A Gemini stream whose second event never ends: 1 MiB pieces of one text, up to 80 MiB. */
function* endlessEvent(): Generator<string> {
  yield 'data: {"candidates":[{"content":{"parts":[{"text":"Once upon"}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"r1"}\r\n\r\n';
  yield 'data: {"candidates":[{"content":{"parts":[{"text":"';
  const piece = 'x'.repeat(1024 * 1024);
  for (let i = 0; i < 80; i++) yield piece;
}
