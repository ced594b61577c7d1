import { describe, expect, it } from 'vitest';
import { encodeMark, indexOfBytes, lastIndexOfBytes } from '../../../core/http/find-bytes.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('find-bytes', () => {
  const text = 'data: {"usage":{"a":1}}\n\nevent: é "usage" ü\n\n';
  const hay = bytes(text);
  const mark = encodeMark('"usage"');

  it('finds the first and the last mark at their byte offsets', () => {
    expect(indexOfBytes(hay, mark)).toBe(text.indexOf('"usage"'));
    // After a two-byte é the byte offset is one more than the string index.
    expect(lastIndexOfBytes(hay, mark)).toBe(text.lastIndexOf('"usage"') + 1);
    expect(new TextDecoder().decode(hay.subarray(lastIndexOfBytes(hay, mark)))).toBe('"usage" ü\n\n');
  });

  it('searches from an offset, and finds a mark at either end', () => {
    const first = indexOfBytes(hay, mark);
    expect(indexOfBytes(hay, mark, first + 1)).toBe(lastIndexOfBytes(hay, mark));
    expect(indexOfBytes(hay, encodeMark('\n\n'), first)).toBe(text.indexOf('\n\n'));
    expect(indexOfBytes(bytes('"usage"'), mark)).toBe(0);
    expect(lastIndexOfBytes(bytes('"usage"'), mark)).toBe(0);
    expect(lastIndexOfBytes(hay, encodeMark('\n\n'))).toBe(hay.byteLength - 2);
  });

  it('answers -1 for a missing mark, a partial one at the end, and a haystack shorter than the mark', () => {
    expect(indexOfBytes(hay, encodeMark('"usageMetadata"'))).toBe(-1);
    expect(lastIndexOfBytes(hay, encodeMark('"usageMetadata"'))).toBe(-1);
    expect(indexOfBytes(bytes('x "usa'), mark)).toBe(-1);
    expect(lastIndexOfBytes(bytes('x "usa'), mark)).toBe(-1);
    expect(lastIndexOfBytes(bytes('"u'), mark)).toBe(-1);
    expect(indexOfBytes(new Uint8Array(0), mark)).toBe(-1);
  });

  it('keeps within a [from, to) range: a mark must fit inside it whole', () => {
    const first = indexOfBytes(hay, mark);
    const last = lastIndexOfBytes(hay, mark);
    expect(indexOfBytes(hay, mark, 0, first + mark.length)).toBe(first);
    expect(indexOfBytes(hay, mark, 0, first + mark.length - 1)).toBe(-1);
    expect(lastIndexOfBytes(hay, mark, 0, last + mark.length - 1)).toBe(first);
    expect(lastIndexOfBytes(hay, mark, first + 1, last + mark.length - 1)).toBe(-1);
    expect(lastIndexOfBytes(hay, mark, last)).toBe(last);
    expect(lastIndexOfBytes(hay, mark, last + 1)).toBe(-1);
    expect(indexOfBytes(hay, mark, 0, hay.length + 100)).toBe(first);
  });
});
