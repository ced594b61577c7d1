import { describe, expect, it } from 'vitest';
import { spliceTopLevel, spliceTopLevelBytes } from '../../../core/http/json-splice.ts';
import { seededInts } from '../../helpers/seeded.ts';

const m = JSON.stringify('claude-sonnet-4-5');

describe('spliceTopLevel', () => {
  it('replaces only the top-level member, keeping every other byte', () => {
    const text = '{ "messages":[{"role":"user","content":[{"type":"text","text":"say \\"model\\": x"}],"model":"inner"}],\n "model" : "alias",\t"n":1e3 }';
    const out = spliceTopLevel(text, 'model', m)!;
    expect(out).toBe(text.replace('"alias"', m));
    expect(JSON.parse(out)).toEqual({ ...JSON.parse(text), model: 'claude-sonnet-4-5' });
  });

  it('handles every value kind before the key, escapes and nesting', () => {
    const text = '{"a":[1,[2,{"b":"]}"}]],"s":"q\\\\","t":true,"z":null,"x":-1.5e-3,"o":{"model":"no"},"model":"yes"}';
    expect(JSON.parse(spliceTopLevel(text, 'model', m)!)).toEqual({ ...JSON.parse(text), model: 'claude-sonnet-4-5' });
  });

  it('finds a key written with escapes, as JSON.parse would', () => {
    const text = '{"mod\\u0065l":"alias","k":2}';
    expect(JSON.parse(spliceTopLevel(text, 'model', m)!)).toEqual({ model: 'claude-sonnet-4-5', k: 2 });
  });

  it('gives up on a missing or duplicated key, and on a non-object', () => {
    expect(spliceTopLevel('{"a":{"model":"x"}}', 'model', m)).toBeUndefined();
    expect(spliceTopLevel('{"model":"a","model":"b"}', 'model', m)).toBeUndefined();
    expect(spliceTopLevel('["model"]', 'model', m)).toBeUndefined();
    expect(spliceTopLevel('{}', 'model', m)).toBeUndefined();
  });

  it('agrees with JSON.parse on a large realistic body', () => {
    const body = {
      model: 'alias',
      system: [{ type: 'text', text: 'x'.repeat(5000), cache_control: { type: 'ephemeral' } }],
      messages: Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `turn ${i} "quoted" \\ back\nslash ✓` }] })),
      tools: [{ name: 't', input_schema: { type: 'object', properties: { model: { type: 'string' } } } }],
      max_tokens: 1024,
      stream: true,
    };
    const text = JSON.stringify(body);
    expect(JSON.parse(spliceTopLevel(text, 'model', m)!)).toEqual({ ...body, model: 'claude-sonnet-4-5' });
  });

  it('with the key known to be at the top level, takes the shortcut only where it gives the answer of the walk (differential, seeded)', () => {
    // Pieces that put "model" in strings, nested objects, escaped keys and duplicates.
    const values = ['"alias"', '1', 'null', '{"model":"in"}', '["model"]', '"say \\"model\\""', '"\\u00e9"', '{"a":{"b":["model",{"model":1}]}}', '" \\\\"'];
    const keys = ['"model"', '"mod\\u0065l"', '"messages"', '"a"', '"b\\u0022"', '"max_tokens"'];
    const next = seededInts(5);
    let shortcut = 0;
    for (let i = 0; i < 20_000; i++) {
      const members: string[] = [];
      const count = 1 + next(5);
      for (let j = 0; j < count; j++) members.push(`${keys[next(keys.length)]}${[':', ' : ', ':\n'][next(3)]}${values[next(values.length)]}`);
      const text = `{${members.join([',', ', '][next(2)])}}`;
      const parsed = JSON.parse(text) as Record<string, unknown>;
      if (!('model' in parsed)) continue;
      const walked = spliceTopLevel(text, 'model', m);
      const quick = spliceTopLevel(text, 'model', m, true);
      if (walked === undefined) {
        // The walk refuses duplicates; the shortcut must not answer where a duplicate could hide.
        expect(quick, text).toBeUndefined();
        continue;
      }
      expect(quick, text).toBe(walked);
      if (!text.includes('\\u') && text.split('"model"').length === 2) shortcut++;
    }
    expect(shortcut).toBeGreaterThan(1_000);
  });
});

describe('spliceTopLevelBytes', () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

  it('makes the splice in the bytes, copying the rest as it came', () => {
    const text = '{"system":"café — ✓ 𝄞 日本","model":"alias","messages":[{"content":"naïve 🎉"}]}';
    const out = spliceTopLevelBytes(encode(text), text, 'model', m, true)!;
    expect(out).toBeInstanceOf(Uint8Array);
    expect(decode(out)).toBe(text.replace('"alias"', m));
  });

  it('gives the bytes themselves, not a copy, when the member already holds the value', () => {
    const text = '{"model":"claude-sonnet-4-5","messages":[{"content":"naïve"}]}';
    const bytes = encode(text);
    expect(spliceTopLevelBytes(bytes, text, 'model', m, true)).toBe(bytes);
  });

  it('gives up where the text splice does', () => {
    for (const text of ['{"a":{"model":"x"}}', '{"model":"a","model":"b"}', '["model"]']) expect(spliceTopLevelBytes(encode(text), text, 'model', m)).toBeUndefined();
  });

  it('gives the text splice, encoded, for bodies mixing one- to four-byte characters (differential, seeded)', () => {
    const pieces = ['a', ' ', '\\"', 'é', '—', '日', '🎉', '𝄞', '\\u00e9', '\\n'];
    const next = seededInts(11);
    for (let i = 0; i < 2_000; i++) {
      const str = () => Array.from({ length: next(12) }, () => pieces[next(pieces.length)]).join('');
      const others = [`"a":"${str()}"`, `"b":["${str()}",{"c":"${str()}"}]`];
      // The model first, between or last (its offsets are counted from the nearer end).
      const at = next(3);
      const ordered = [...others.slice(0, at), `"model":"${str()}"`, ...others.slice(at)];
      const text = `{${ordered.join(',')}}`;
      JSON.parse(text);
      expect(decode(spliceTopLevelBytes(encode(text), text, 'model', m, true)!), text).toBe(spliceTopLevel(text, 'model', m, true));
      expect(decode(spliceTopLevelBytes(encode(text), text, 'model', m)!), text).toBe(spliceTopLevel(text, 'model', m));
    }
  });
});
