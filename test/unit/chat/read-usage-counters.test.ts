import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileUsageCounters, readUsageCounters } from '../../../core/chat/read-usage-counters.ts';
import type { Usage } from '../../../core/ir.ts';

const ANTHROPIC = compileUsageCounters({ input_tokens: 'inputTokens', output_tokens: 'outputTokens', cache_read_input_tokens: 'cacheReadTokens' });
const bytes = (text: string) => new TextEncoder().encode(text);

function read(text: string, opts: { from?: number; to?: number; cut?: boolean } = {}): Partial<Record<keyof Usage, number>> {
  const b = bytes(text);
  const seen: Partial<Record<keyof Usage, number>> = {};
  readUsageCounters(b, opts.from ?? 0, opts.to ?? b.length, ANTHROPIC, seen, opts.cut);
  return seen;
}

/** What the regular expression it replaced found, for comparison on the same text. */
function readByPattern(text: string): Partial<Record<keyof Usage, number>> {
  const pattern = /"(?:(input_tokens)|(output_tokens)|(cache_read_input_tokens))"\s*:\s*(\d+)/g;
  const keys: Array<keyof Usage> = ['inputTokens', 'outputTokens', 'cacheReadTokens'];
  const seen: Partial<Record<keyof Usage, number>> = {};
  for (const match of text.matchAll(pattern)) seen[keys[match.slice(1, 4).findIndex((g) => g !== undefined)]!] = Number(match[4]);
  return seen;
}

describe('readUsageCounters', () => {
  it('reads each named counter, the last value of each winning', () => {
    expect(read('{"usage":{"input_tokens":12,"output_tokens":1}} {"usage":{"output_tokens":34}}')).toEqual({ inputTokens: 12, outputTokens: 34 });
  });

  it('takes JSON whitespace around the colon, and nothing that is not a number', () => {
    expect(read('{"input_tokens" :\n\t 12, "output_tokens": "7", "cache_read_input_tokens":-3}')).toEqual({ inputTokens: 12 });
  });

  it('never takes a look-alike name, a name cut short, or one inside a JSON string (escaped quotes)', () => {
    expect(read('{"my_input_tokens":5,"input_tokens_total":6,"input_token":7,"text":"\\"input_tokens\\": 8"}')).toEqual({});
  });

  it('reads only [from, to): a match must start in it, and its number ends there', () => {
    const text = '{"input_tokens":12,"output_tokens":345}';
    expect(read(text, { from: text.indexOf('"output') })).toEqual({ outputTokens: 345 });
    expect(read(text, { to: text.indexOf('"output') })).toEqual({ inputTokens: 12 });
    expect(read(text, { to: text.indexOf('45}') })).toEqual({ inputTokens: 12, outputTokens: 3 });
    // A window cut out of a longer text: a number running up to the cut may be truncated.
    expect(read(text, { to: text.indexOf('45}'), cut: true })).toEqual({ inputTokens: 12 });
  });

  it('finds what the regular expression it replaced found, multi-byte text and all', () => {
    const texts = [
      'event: message_start\ndata: {"type":"message_start","message":{"content":[],"usage":{"input_tokens":312,"cache_read_input_tokens":0,"output_tokens":1}}}\n\n',
      '{"content":[{"type":"text","text":"ünïcödé — \\"output_tokens\\": 9 ✓"}],"usage":{"input_tokens" : 4 ,"output_tokens"\r\n:\r\n56}}',
      '"""input_tokens""input_tokens":1"output_tokens":2:3"input_tokens":"4"',
      '{"input_tokens":12345678901234}',
      '{"input_tokensX:5,"output_tokens\\":6}',
    ];
    for (const text of texts) expect(read(text)).toEqual(readByPattern(text));
  });

  it('finds what the regular expression found in every Anthropic and Gemini fixture, read whole', () => {
    const gemini = compileUsageCounters({ promptTokenCount: 'inputTokens', candidatesTokenCount: 'outputTokens', thoughtsTokenCount: 'reasoningTokens', cachedContentTokenCount: 'cacheReadTokens' });
    const geminiPattern = /"(?:(promptTokenCount)|(candidatesTokenCount)|(thoughtsTokenCount)|(cachedContentTokenCount))"\s*:\s*(\d+)/g;
    const geminiKeys: Array<keyof Usage> = ['inputTokens', 'outputTokens', 'reasoningTokens', 'cacheReadTokens'];
    let files = 0;
    for (const family of ['anthropic', 'gemini'] as const) {
      const dir = join(import.meta.dirname, '../../fixtures', family);
      for (const name of readdirSync(dir)) {
        const text = readFileSync(join(dir, name), 'utf8');
        const b = bytes(text);
        const seen: Partial<Record<keyof Usage, number>> = {};
        if (family === 'anthropic') {
          readUsageCounters(b, 0, b.length, ANTHROPIC, seen);
          expect(seen, name).toEqual(readByPattern(text));
        } else {
          readUsageCounters(b, 0, b.length, gemini, seen);
          const expected: Partial<Record<keyof Usage, number>> = {};
          for (const match of text.matchAll(geminiPattern)) expected[geminiKeys[match.slice(1, 5).findIndex((g) => g !== undefined)]!] = Number(match[5]);
          expect(seen, name).toEqual(expected);
        }
        files++;
      }
    }
    expect(files).toBeGreaterThan(20);
  });
});

