import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { ChatRequest, StreamEvent } from '../../../../core/ir.ts';
import { learnChunkTemplate } from '../../../../core/upstreams/openai/chunk-template.ts';
import { createOpenAIChunkReader, readOpenAIStream } from '../../../../core/upstreams/openai/read-stream.ts';
import type { OpenAIChatCompletion } from '../../../../core/upstreams/openai/types.ts';
import { readInPieces } from '../../../helpers/streams.ts';

const VLLM = (text: string) =>
  `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1700000000,"model":"openai/gpt-oss-120b","choices":[{"index":0,"delta":{"content":${text}},"logprobs":null,"finish_reason":null}]}`;
const learnFrom = (data: string) => learnChunkTemplate(data, JSON.parse(data) as OpenAIChatCompletion)?.template;

describe('learnChunkTemplate (JsonTemplate over OpenAI chunks)', () => {
  it('reads a chunk that differs only in its text exactly as JSON.parse does', () => {
    const template = learnFrom(VLLM('"The"'))!;
    expect(template).toBeDefined();
    for (const text of ['" gateway"', '""', '"a\\"b"', '"line\\nbreak \\\\ \\u00e9 \\/"', '"é 中文 😀"', '"\\ud83d\\ude00"', '"' + 'x'.repeat(5000) + '"']) {
      const data = VLLM(text);
      expect(template.fill(data)).toEqual(JSON.parse(data));
    }
  });

  it('leaves to JSON.parse anything that is not the template with another whole string', () => {
    const template = learnFrom(VLLM('"The"'))!;
    const others = [
      VLLM('"a","x":"b"'), // an unescaped quote changes the structure
      VLLM('"a\\n","x":"b"'), // the same after an escape
      VLLM('"bad \\q escape"'),
      VLLM('"raw\ncontrol"'),
      VLLM('"cut'),
      VLLM('"The"').replace('"finish_reason":null', '"finish_reason":"stop"'),
      VLLM('"The"').replace('"created":1700000000', '"created":1700000001'),
      VLLM('"The"') + ' ',
      ' ' + VLLM('"The"'),
      '[DONE]',
      '',
    ];
    for (const data of others) {
      const filled = template.fill(data);
      if (filled === undefined) continue;
      // Whatever it accepts must be exactly what a parse gives.
      expect(filled).toEqual(JSON.parse(data));
    }
    expect(template.fill(VLLM('"a","x":"b"'))).toBeUndefined();
    expect(template.fill(VLLM('"raw\ncontrol"'))).toBeUndefined();
    expect(template.fill(VLLM('"bad \\q escape"'))).toBeUndefined();
  });

  it("fills chunks whose id, creation time, build and obfuscation differ exactly as JSON.parse does", () => {
    const openai = (text: string, id: string, created: string, fp: string, obfuscation: string) =>
      `{"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"gpt-5","service_tier":"default","system_fingerprint":"${fp}","choices":[{"index":0,"delta":{"content":"${text}"},"logprobs":null,"finish_reason":null}],"obfuscation":"${obfuscation}"}`;
    const template = learnFrom(openai('The', 'chatcmpl-A', '1700000000', 'fp_1', 'x8'))!;
    const same = [
      openai(' next', 'chatcmpl-B', '1700000123', 'fp_2', 'yQ3z'),
      openai('', '', '0', '', ''),
      openai('é \\"', 'chatcmpl-\\u00e9', '9', 'fp_1', 'a\\nb'),
    ];
    for (const data of same) expect(template.fill(data), data).toEqual(JSON.parse(data));
    const others = [
      openai('a', 'x', '-1', 'fp', 'o'),
      openai('a', 'x', '1.5', 'fp', 'o'),
      openai('a', 'x', '1e3', 'fp', 'o'),
      openai('a', 'x', '012', 'fp', 'o'),
      openai('a', 'x', '1234567890123456', 'fp', 'o'),
      openai('a', 'x', '"1"', 'fp', 'o'),
      openai('a', 'x"', '1', 'fp', 'o'),
      openai('a', 'x', '1', 'fp', 'o').replace('"model":"gpt-5"', '"model":"gpt-6"'),
    ];
    for (const data of others) expect(template.fill(data), data).toBeUndefined();
  });

  it('keeps values of those names that are not at the top as they are', () => {
    const nested = (text: string, id: string) => `{"x_groq":{"id":"${id}"},"choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}`;
    const template = learnFrom(nested('a', 'req_1'))!;
    expect(template.fill(nested('b', 'req_1'))).toEqual(JSON.parse(nested('b', 'req_1')));
    expect(template.fill(nested('b', 'req_2'))).toBeUndefined();
  });

  it('learns the reasoning fields too, and only chunks whose one effect is their text', () => {
    const reasoning = '{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"Let me","content":null},"finish_reason":null}]}';
    const template = learnFrom(reasoning)!;
    const next = reasoning.replace('Let me', ' think');
    expect(template.fill(next)).toEqual(JSON.parse(next));

    const refused = [
      '{"id":"c","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}',
      '{"id":"c","choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}',
      '{"id":"c","choices":[{"index":0,"delta":{"content":"a","tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}',
      '{"id":"c","choices":[{"index":0,"delta":{"content":"a","reasoning":"b"}}]}',
      '{"id":"c","choices":[{"index":0,"delta":{"content":"a","refusal":"no"}}]}',
      '{"id":"c","choices":[{"index":1,"delta":{"content":"a"}}]}',
      '{"id":"c","choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}',
      // Two "content" keys: which one varies cannot be told from the text.
      '{"id":"c","x":{"content":"a"},"choices":[{"index":0,"delta":{"content":"a"}}]}',
    ];
    for (const data of refused) expect(learnFrom(data), data).toBeUndefined();
  });

  it('finds the delta\'s string however the host spaces its JSON', () => {
    const spaced = '{ "id": "c", "choices": [ { "index": 0, "delta": { "content" : "Hi" }, "finish_reason": null } ] }';
    const template = learnFrom(spaced)!;
    const next = spaced.replace('"Hi"', '" there"');
    expect(template.fill(next)).toEqual(JSON.parse(next));
  });
});

const req: ChatRequest = { model: 'm', system: [], messages: [], stream: true, source: { family: 'anthropic', extra: {} } };

describe('the OpenAI chunk reader with templates', () => {
  const fixture = readFileSync(fileURLToPath(new URL('../../../../bench/upstream/openai-stream.sse', import.meta.url)), 'utf8');

  it('reads most chunks of a stream without JSON.parse', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      await readInPieces(fixture, 64, readOpenAIStream(req, 'oss'));
      const chunks = fixture.split('\n\n').filter((event) => event.startsWith('data: {')).length;
      // The first (role) chunk, the first text chunk, the probe of its template, the finish and usage chunks.
      expect(parse.mock.calls.length).toBeLessThanOrEqual(6);
      expect(chunks).toBeGreaterThan(25);
    } finally {
      parse.mockRestore();
    }
  });

  it('gives the same events as parsing every chunk, for text, reasoning and escapes', () => {
    const texts = ['Hello', ' "quoted"', ' line\nbreak', ' tab\t', ' é😀', ' \\', ''];
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra });
    const messages = [
      chunk({ role: 'assistant', content: '' }),
      ...texts.map((t) => chunk({ reasoning_content: t })),
      ...texts.map((t) => chunk({ content: t })),
      ...texts.map((t) => chunk({ content: t }, { obfuscation: t.length.toString(36) })),
      JSON.stringify({ id: 'c', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      '[DONE]',
    ];
    const readAll = (datas: string[]) => {
      const reader = createOpenAIChunkReader(req, 'oss');
      const out: StreamEvent[] = [];
      for (const data of datas) reader.push({ data }, (e) => out.push(structuredClone(e)));
      reader.end((e) => out.push(structuredClone(e)));
      return out;
    };
    const templated = readAll(messages);
    // The same chunks, each ending in a different run of spaces (still the same JSON), so no
    // template ever matches and every one is parsed in full.
    const parsedEach = readAll(messages.map((data, i) => (data === '[DONE]' ? data : data + ' '.repeat(i))));
    expect(templated).toEqual(parsedEach);
    const texted = templated.filter((e) => e.type === 'text-delta').map((e) => (e as { text: string }).text).join('');
    const reasoned = templated.filter((e) => e.type === 'reasoning-delta').map((e) => (e as { text: string }).text).join('');
    expect(reasoned).toBe(texts.join(''));
    expect(texted).toBe(texts.join('') + texts.join(''));
    expect(templated.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });
});
