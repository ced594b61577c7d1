import { describe, expect, it } from 'vitest';
import { readLeadingString, scanJsonObject, type JsonScan } from '../../../core/http/json-scan.ts';
import { seededInts } from '../../helpers/seeded.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder();

/** What JSON.parse makes of the bytes as parseJsonBody decodes them: an object, or undefined. */
function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(lenient.decode(bytes));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isWellFormedUtf8(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The scan agrees with JSON.parse: same verdict (bar ill-formed UTF-8, left to the parse), and each member's span parses to its value. */
function expectAgreement(bytes: Uint8Array): JsonScan | undefined {
  const scan = scanJsonObject(bytes);
  const parsed = parseObject(bytes);
  if (scan === undefined) {
    if (parsed !== undefined) expect(isWellFormedUtf8(bytes), lenient.decode(bytes)).toBe(false);
    return undefined;
  }
  expect(parsed, lenient.decode(bytes)).toBeDefined();
  const last = new Map(scan.members.map((m) => [m.key, m]));
  expect([...last.keys()].sort()).toEqual(Object.keys(parsed!).sort());
  for (const [key, member] of last) {
    expect(JSON.parse(lenient.decode(bytes.subarray(member.start, member.end)))).toEqual(parsed![key]);
    expect(member.kind).toBe(bytes[member.start]);
  }
  return scan;
}

describe('scanJsonObject', () => {
  it('finds the top-level members of a body and where each value lies', () => {
    const text = '{ "model" : "alias",\n"messages":[{"role":"user","content":"say \\"model\\": ✓"}],"max_tokens":1e3,"stream":true,"meta":{},"x":null,"list":[] }';
    const scan = expectAgreement(encode(text))!;
    expect(scan.members.map((m) => m.key)).toEqual(['model', 'messages', 'max_tokens', 'stream', 'meta', 'x', 'list']);
    const model = scan.members[0]!;
    expect(new TextDecoder().decode(encode(text).subarray(model.start, model.end))).toBe('"alias"');
    expect(scan.from).toBe(0);
  });

  it('reads keys written with escapes and non-ASCII, and keeps repeated ones in order', () => {
    const scan = expectAgreement(encode('{"mod\\u0065l":1,"é":2,"model":3}'))!;
    expect(scan.members.map((m) => m.key)).toEqual(['model', 'é', 'model']);
  });

  it('starts after a byte-order mark, as the decoder does', () => {
    const scan = scanJsonObject(Uint8Array.of(0xef, 0xbb, 0xbf, ...encode('{"a":1}')))!;
    expect(scan.from).toBe(3);
    expect(scan.members[0]).toMatchObject({ key: 'a', start: 8, end: 9 });
  });

  it('refuses what JSON.parse refuses, and anything but an object', () => {
    const bad = ['', ' ', '[]', '"x"', '1', 'null', '{', '{"a"}', '{"a":}', '{"a":1,}', '{,"a":1}', '{"a":1}}', '{"a":1} x', '{"a":[1,]}', '{"a":[1 2]}', '{a:1}', "{'a':1}", '{"a":01}', '{"a":1.}', '{"a":.5}', '{"a":-}', '{"a":1e}', '{"a":+1}', '{"a":0x1}', '{"a":tru}', '{"a":nul}', '{"a":True}', '{"a":NaN}', '{"a":"\\x"}', '{"a":"\\u12"}', '{"a":"\\u12g4"}', '{"a":"\t"}', '{"a":"\n"}', '{"a":"unterminated}', '{"a":[}', '{"a":{]}', '{"a":1/*c*/}'];
    for (const text of bad) {
      expect(parseObject(encode(text)), text).toBeUndefined();
      expect(scanJsonObject(encode(text)), text).toBeUndefined();
    }
  });

  it('accepts every number form and escape JSON has', () => {
    expectAgreement(encode('{"n":[0,-0,1,-1,10,1.5,-0.25,1e5,1E5,1e+5,1e-5,2.5E-10,123456789012345678901234567890],"s":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83C\\uDF89"}'));
  });

  it('leaves ill-formed UTF-8 to the decoder (overlong, surrogate, too large, cut short, stray continuation)', () => {
    const cases = [[0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xff]];
    for (const seq of cases) {
      const bytes = Uint8Array.of(...encode('{"a":"x'), ...seq, ...encode('"}'));
      expect(scanJsonObject(bytes), seq.join(' ')).toBeUndefined();
      expect(parseObject(bytes)).toBeDefined();
    }
    // The edges that are well-formed: U+0080, U+07FF, U+0800, U+FFFF, U+10000, U+10FFFF.
    for (const ch of ['\u0080', '\u07ff', '\u0800', '\uffff', '\u{10000}', '\u{10ffff}']) expectAgreement(encode(`{"a":"${ch}"}`));
  });

  it('notes a string value that starts with the marker, wherever it is', () => {
    expect(scanJsonObject(encode('{"m":[{"signature":"sy1.openai.x"}]}'), 'sy1.')!.marked).toBe(true);
    expect(scanJsonObject(encode('{"m":"not sy1.x","sy1.k":1}'), 'sy1.')!.marked).toBe(false);
    expect(scanJsonObject(encode('{"m":"sy1.x"}'))!.marked).toBe(false);
  });

  it('goes as deep as the body does, without recursion', () => {
    const depth = 100_000;
    expect(scanJsonObject(encode(`{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`))!.members[0]!.key).toBe('a');
    expect(scanJsonObject(encode(`{"a":${'['.repeat(depth)}${']'.repeat(depth - 1)}}`))).toBeUndefined();
  });

  it('agrees with JSON.parse on bodies broken at random (differential, seeded)', () => {
    const seeds = [
      '{"model":"claude","max_tokens":1024,"stream":true,"system":[{"type":"text","text":"You are — helpful ✓","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"naïve \\"quote\\" \\\\ \\u00e9 🎉"},{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":false}]}],"temperature":0.5,"stop":null,"metadata":{"user_id":"u"}}',
      '{"contents":[{"role":"user","parts":[{"text":"日本語 text"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}],"generationConfig":{"maxOutputTokens":64,"temperature":-1.5e-3},"tools":[]}',
    ];
    // Bytes a mutation puts in: JSON's punctuation, digits, escapes, whitespace, controls, UTF-8 pieces.
    const alphabet = encode('{}[]:,"\\/0123456789-+.eEtrufalsn u\t\n\r');
    const extra = [0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc2, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xed, 0xa0, 0xf0, 0x9f, 0x8e, 0x89, 0xff];
    const next = seededInts(11);
    let accepted = 0;
    let refused = 0;
    for (let round = 0; round < 6000; round++) {
      const bytes = [...encode(seeds[round % seeds.length]!)];
      for (let edits = 1 + next(3); edits > 0; edits--) {
        const at = next(bytes.length + 1);
        const pick = next(4) === 0 ? extra[next(extra.length)]! : alphabet[next(alphabet.length)]!;
        const op = next(3);
        if (op === 0) bytes.splice(at, 1);
        else if (op === 1) bytes.splice(at, 0, pick);
        else bytes[Math.min(at, bytes.length - 1)] = pick;
      }
      if (expectAgreement(Uint8Array.from(bytes))) accepted++;
      else refused++;
    }
    // Both sides are exercised: broken bodies, and bodies a mutation left valid.
    expect(accepted).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(3000);
  });
});

describe('readLeadingString', () => {
  it('reads a string value when its key leads the object', () => {
    expect(readLeadingString(encode('{"model":"claude-sonnet-4-5","messages":[]}'), 'model')).toBe('claude-sonnet-4-5');
    expect(readLeadingString(encode(' \n{ "model" : "acme.é" ,"x":1}'), 'model')).toBe('acme.é');
    expect(readLeadingString(Uint8Array.of(0xef, 0xbb, 0xbf, ...encode('{"model":"m"}')), 'model')).toBe('m');
  });

  it('gives nothing for any other shape: another first key, a non-string, an escape, a long or cut-off string', () => {
    for (const text of ['{"messages":[],"model":"m"}', '{"models":"m"}', '{"model":1}', '{"model":"a\\u0062"}', `{"model":"${'m'.repeat(300)}"}`, '{"model":"m', '["model"]', '{"mod\\u0065l":"m"}']) {
      expect(readLeadingString(encode(text), 'model'), text).toBeUndefined();
    }
  });
});
