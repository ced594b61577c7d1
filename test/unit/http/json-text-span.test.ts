import { describe, expect, it } from 'vitest';
import { JsonTextSpan, readExactStringBody } from '../../../core/http/json-text-span.ts';

const encoder = new TextEncoder();

/** `body` between quotes, as bytes, and what readExactStringBody says of it. */
function read(body: string | Uint8Array): { end: number; length: number } {
  const inner = typeof body === 'string' ? encoder.encode(body) : body;
  const bytes = new Uint8Array(inner.length + 3);
  bytes[0] = 0x22;
  bytes.set(inner, 1);
  bytes[inner.length + 1] = 0x22;
  bytes[inner.length + 2] = 0x7d; // anything after the string
  return { end: readExactStringBody(bytes, 1, bytes.length), length: inner.length };
}

describe('readExactStringBody', () => {
  it('accepts the body JSON.stringify writes for any string, up to its closing quote', () => {
    const strings = ['', 'plain', ' "quoted" ', 'back\\slash', 'line\nbreak\r\ttab\b\f', '\u0000\u0001\u001f\u007f', 'é 中文 😀', '\u2028\u2029', '\ufeffbom first', 'x'.repeat(3000)];
    for (const s of strings) {
      const body = JSON.stringify(s).slice(1, -1);
      const { end, length } = read(body);
      expect(end, JSON.stringify(s)).toBe(length + 1);
    }
  });

  it('refuses what JSON.stringify would write otherwise, or not at all', () => {
    const refused = [
      '\\/', // stringify writes "/"
      '\\u00e9', // stringify writes "é"
      '\\u0041',
      '\\u001F', // upper-case hex
      '\\u0008', // has the short form \b
      '\\u000a',
      '\\ud83d\\ude00', // stringify writes the emoji itself
      '\\ud83d', // a lone surrogate escape
      '\\q',
      '\\u00',
      'raw\ncontrol',
      'raw\ttab',
      'cut \\',
    ];
    for (const body of refused) expect(read(body).end, body).toBe(-1);
    // An unescaped quote ends the body early: the caller then finds the rest does not match.
    expect(read('a"b').end).toBe(2);
  });

  it('refuses bytes that are not well-formed UTF-8', () => {
    const bad = [
      [0xc0, 0x80], // overlong
      [0xe0, 0x80, 0x80], // overlong
      [0xed, 0xa0, 0x80], // a surrogate
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xf5, 0x80, 0x80, 0x80],
      [0x80], // a lone continuation byte
      [0xe4, 0xb8], // cut before the quote
      [0xff],
    ];
    for (const bytes of bad) expect(read(new Uint8Array(bytes)).end, bytes.join(' ')).toBe(-1);
    expect(read(new Uint8Array([0xf0, 0x9f, 0x98, 0x80])).end).toBe(5);
  });

  it('whatever it accepts, JSON.stringify of its value writes back byte for byte', () => {
    // Random bodies over the characters that matter: escapes, quotes, controls, multi-byte.
    const pieces = ['a', ' ', '\\', '"', '\\n', '\\"', '\\\\', '\\u001f', '\\u00e9', '\\/', 'é', '😀', '\n', '\\t', 'u', '0'];
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % pieces.length);
    let accepted = 0;
    for (let n = 0; n < 5000; n++) {
      let body = '';
      for (let k = random() % 6; k >= 0; k--) body += pieces[random()];
      const { end, length } = read(body);
      if (end !== length + 1) continue;
      accepted++;
      expect(JSON.stringify(JSON.parse(`"${body}"`)), body).toBe(`"${body}"`);
    }
    expect(accepted).toBeGreaterThan(500);
  });
});

describe('JsonTextSpan', () => {
  it('decodes its text, escapes and a leading U+FEFF included, and copies its bytes', () => {
    for (const s of ['plain', 'a "b" \\ c\nd', '\ufeffbom', 'é😀']) {
      const json = encoder.encode(`xx${JSON.stringify(s)}yy`);
      const span = new JsonTextSpan(json, 3, json.length - 3);
      expect(span.text()).toBe(s);
      const out = new Uint8Array(span.byteLength + 2);
      expect(span.writeInto(out, 1)).toBe(span.byteLength + 1);
      expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(out.subarray(1, -1))).toBe(JSON.stringify(s).slice(1, -1));
    }
  });
});
