import { describe, expect, it } from 'vitest';
import { readTextBytes, utf8Length } from '../../../core/http/text-bytes.ts';
import { seededInts } from '../../helpers/seeded.ts';

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('readTextBytes', () => {
  it('gives the bytes a text was decoded from', () => {
    const bytes = new TextEncoder().encode('{"text":"café 🎉"}');
    expect(readTextBytes(bytes, decode(bytes))).toBe(bytes);
  });

  it('leaves out the byte-order mark the decoder dropped', () => {
    const bytes = Uint8Array.of(0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a":1}'));
    const text = decode(bytes);
    expect(text).toBe('{"a":1}');
    expect(decode(readTextBytes(bytes, text)!)).toBe(text);
    expect(readTextBytes(bytes, text)!.byteLength).toBe(7);
  });

  it('refuses bytes the decoder repaired (invalid UTF-8 became U+FFFD)', () => {
    const bytes = Uint8Array.of(0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d);
    expect(readTextBytes(bytes, decode(bytes))).toBeUndefined();
  });
});

describe('utf8Length', () => {
  it('counts what TextEncoder writes, for slices that keep surrogate pairs whole (seeded)', () => {
    const chars = ['a', '~', '\u007f', '\u0080', 'é', '\u07ff', '\u0800', '—', '日', '\uffff', '🎉', '𝄞'];
    const next = seededInts(3);
    for (let i = 0; i < 2_000; i++) {
      const parts = Array.from({ length: next(20) }, () => chars[next(chars.length)]!);
      const text = parts.join('');
      const cut = parts.slice(0, next(parts.length + 1)).join('').length;
      expect(utf8Length(text, 0, cut)).toBe(new TextEncoder().encode(text.slice(0, cut)).byteLength);
      expect(utf8Length(text, cut, text.length)).toBe(new TextEncoder().encode(text.slice(cut)).byteLength);
    }
  });

  it('counts a lone surrogate as the U+FFFD TextEncoder writes for it, whatever follows', () => {
    for (const text of ['\ud83d', '\ude00', '\ud83d中', '\ud83da', '\ud83d\ud83d\ude00', '\ude00\ud83d', 'x\ud83d日\ude00']) {
      expect(utf8Length(text, 0, text.length)).toBe(new TextEncoder().encode(text).byteLength);
    }
  });
});
