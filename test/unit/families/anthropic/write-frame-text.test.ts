import { describe, expect, it } from 'vitest';
import {
  MESSAGE_STOP_TEXT,
  PING_TEXT,
  writeBlockStopText,
  writeMessageDeltaText,
  writeMessageStartText,
  writeTextBlockStartText,
  writeTextDeltaText,
  writeThinkingBlockStartText,
  writeThinkingDeltaText,
} from '../../../../core/families/anthropic/write-frame-text.ts';

/** What the stream writer sent before these were written as text: the object form, stringified. */
const asObject = (type: string, body: Record<string, unknown>) => JSON.stringify({ type, ...body });

const usage = { input_tokens: 312, output_tokens: 28, cache_creation_input_tokens: 0, cache_read_input_tokens: 4096 };
const awkward = ['', 'plain', 'quote " and backslash \\', 'line\nbreak\ttab\u0001', 'emoji 🦀 and \u2028 and lone \ud800', '</script>'];

describe('Anthropic stream frames written as text', () => {
  it('are byte for byte the object form for message_start, whatever the id and model', () => {
    for (const text of awkward) {
      const message = { id: `msg_${text}`, type: 'message', role: 'assistant', model: text, content: [], stop_reason: null, stop_sequence: null, usage };
      expect(writeMessageStartText(`msg_${text}`, text, usage)).toBe(asObject('message_start', { message }));
    }
  });

  it('are the object form for message_delta, with and without a stop sequence', () => {
    const final = { output_tokens: 28, input_tokens: 312, cache_creation_input_tokens: 0, cache_read_input_tokens: 4096 };
    expect(writeMessageDeltaText('end_turn', null, usage)).toBe(asObject('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: final }));
    for (const text of awkward) {
      expect(writeMessageDeltaText('stop_sequence', text, usage)).toBe(asObject('message_delta', { delta: { stop_reason: 'stop_sequence', stop_sequence: text }, usage: final }));
    }
    // Searches run (a translated Google Search) follow the counts, as the API puts them.
    const searched = { ...usage, server_tool_use: { web_search_requests: 2 } };
    expect(writeMessageDeltaText('end_turn', null, searched)).toBe(asObject('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { ...final, server_tool_use: { web_search_requests: 2 } } }));
  });

  it('write a count that is not a finite number as JSON does (null), never as NaN', () => {
    const broken = { ...usage, output_tokens: Number.NaN, input_tokens: Number.POSITIVE_INFINITY, cache_read_input_tokens: -0 };
    const text = writeMessageStartText('msg_1', 'm', broken);
    expect(text).toBe(asObject('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: broken } }));
    expect(() => JSON.parse(writeMessageDeltaText('end_turn', null, broken))).not.toThrow();
  });

  it('are the object form for block starts, stops, deltas, ping and message_stop', () => {
    for (const index of [0, 1, 17]) {
      expect(writeTextBlockStartText(index)).toBe(asObject('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      expect(writeThinkingBlockStartText(index)).toBe(asObject('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      expect(writeBlockStopText(index)).toBe(asObject('content_block_stop', { index }));
      for (const text of awkward) {
        expect(writeTextDeltaText(index, text)).toBe(asObject('content_block_delta', { index, delta: { type: 'text_delta', text } }));
        expect(writeThinkingDeltaText(index, text)).toBe(asObject('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: text } }));
      }
    }
    expect(PING_TEXT).toBe(asObject('ping', {}));
    expect(MESSAGE_STOP_TEXT).toBe(asObject('message_stop', {}));
  });
});
