import { describe, expect, it } from 'vitest';
import { readThinkTags } from '../../../../core/upstreams/openai/read-think-tags.ts';

/** Reads fragments the way the stream reader does: straight through once the reader is `passing`. */
function split(fragments: string[]) {
  const reader = readThinkTags();
  const pieces = [...fragments.flatMap((f) => (reader.passing() ? [{ kind: 'text' as const, text: f }] : reader.push(f))), ...reader.end()];
  // Merge neighbours of one kind so the assertion is about content, not fragment boundaries.
  return pieces.reduce<Array<{ kind: string; text: string }>>((out, p) => {
    const last = out.at(-1);
    if (last?.kind === p.kind) last.text += p.text;
    else out.push({ ...p });
    return out;
  }, []);
}

describe('readThinkTags', () => {
  it('splits a leading think block whatever the fragment boundaries', () => {
    const text = '  <think>plan < a </thin b</think>\n\nanswer </think> stays';
    const expected = [
      { kind: 'reasoning', text: 'plan < a </thin b' },
      { kind: 'text', text: 'answer </think> stays' },
    ];
    for (let size = 1; size <= text.length; size++) {
      const fragments: string[] = [];
      for (let i = 0; i < text.length; i += size) fragments.push(text.slice(i, i + size));
      expect(split(fragments)).toEqual(expected);
    }
  });

  it('passes content without a leading tag through at once', () => {
    const reader = readThinkTags();
    expect(reader.push('Hello <think>')).toEqual([{ kind: 'text', text: 'Hello <think>' }]);
    expect(reader.end()).toEqual([]);
  });

  it('is passing only once past the reasoning with nothing held back', () => {
    const reader = readThinkTags();
    const seen = ['  <thi', 'nk>plan</th', 'ink>', '\n\n', 'answer', ' more'].map((f) => {
      reader.push(f);
      return reader.passing();
    });
    expect(seen).toEqual([false, false, false, false, true, true]);
    const plain = readThinkTags();
    expect(plain.passing()).toBe(false);
    plain.push('Hi');
    expect(plain.passing()).toBe(true);
  });

  it('keeps an unclosed think block as reasoning and an undecided prefix as text', () => {
    expect(split(['<think>cut off'])).toEqual([{ kind: 'reasoning', text: 'cut off' }]);
    expect(split(['<thi'])).toEqual([{ kind: 'text', text: '<thi' }]);
  });
});
