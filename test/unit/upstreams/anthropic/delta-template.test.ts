import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { StreamEvent } from '../../../../core/ir.ts';
import { readAnthropicStream } from '../../../../core/upstreams/anthropic/read-stream.ts';
import { loadFixture, plainEvents, readInPieces } from '../../../helpers/streams.ts';

const read = async (text: string) => plainEvents(await readInPieces(text, 64, readAnthropicStream({ provider: 'claude' })));

/** The same SSE text with every data line ending in a different run of spaces: the same JSON, never the same text twice. */
function withoutRepeats(text: string): string {
  // Split on \n only: a regular expression's ^ and $ would also break lines at U+2028 in the text.
  let n = 0;
  return text
    .split('\n')
    .map((line) => (line.startsWith('data: ') ? line + ' '.repeat(n++) : line))
    .join('\n');
}

describe('Anthropic deltas read through templates', () => {
  const bench = readFileSync(fileURLToPath(new URL('../../../../bench/upstream/anthropic-stream.sse', import.meta.url)), 'utf8');

  it('reads most text deltas of a stream without JSON.parse', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      await read(bench);
      const deltas = bench.match(/"content_block_delta"/g)!.length;
      expect(deltas).toBeGreaterThan(20);
      // message_start, content_block_start, the first delta and its template's probe, stop, message_delta, message_stop.
      expect(parse.mock.calls.length).toBeLessThanOrEqual(8);
    } finally {
      parse.mockRestore();
    }
  });

  it.each(['upstream-thinking-tool.sse', 'upstream-server-tools.sse', 'upstream-overloaded.sse'])('%s: the same events as parsing every event', async (name) => {
    const text = loadFixture(`anthropic/${name}`);
    const templated: StreamEvent[] = await read(text);
    expect(templated).toEqual(await read(withoutRepeats(text)));
  });

  it('text with quotes, escapes, control characters and other scripts: the same events as parsing each', async () => {
    const texts = ['The', ' "quoted"', ' line\nbreak', ' tab\t', ' back\\slash', ' é中😀', '', ' \u2028 end'];
    const delta = (index: number, type: string, key: string, value: string) =>
      `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index, delta: { type, [key]: value } })}\n\n`;
    const text = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}\n\n',
      ...texts.map((t) => delta(0, 'thinking_delta', 'thinking', t)),
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\n\n',
      ...texts.map((t) => delta(1, 'text_delta', 'text', t)),
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}\n\n',
      ...['{"a"', ':"b\\"c"', '}'].map((t) => delta(2, 'input_json_delta', 'partial_json', t)),
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":2}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join('');
    const templated = await read(text);
    expect(templated).toEqual(await read(withoutRepeats(text)));
    const joined = (type: string) => templated.filter((e) => e.type === type).map((e) => (e as { text: string }).text).join('');
    expect(joined('reasoning-delta')).toBe(texts.join(''));
    expect(joined('text-delta')).toBe(texts.join(''));
    expect(templated.filter((e) => e.type === 'tool-input-delta').map((e) => (e as { json: string }).json).join('')).toBe('{"a":"b\\"c"}');
  });
});
