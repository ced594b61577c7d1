import type { Usage } from '../ir.ts';

/** A family's usage counters: each JSON field name as UTF-8 bytes, and the Usage key it fills. */
export interface UsageCounters {
  names: Uint8Array[];
  keys: Array<keyof Usage>;
}

export function compileUsageCounters(fields: Record<string, keyof Usage>): UsageCounters {
  const encoder = new TextEncoder();
  return { names: Object.keys(fields).map((name) => encoder.encode(name)), keys: Object.values(fields) };
}

const QUOTE = 0x22;
const COLON = 0x3a;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * Reads every `"name": digits` of the counters in `bytes[from, to)` into `seen`, the last value of
 * each winning, straight from the UTF-8 bytes: no text is decoded and nothing is allocated. Taken
 * out whole, the tap's reading was 11–15% of a Node SSE passthrough's CPU under load; reading
 * bytes instead of decoding windows and matching a regular expression over them took ~5% of the
 * passthrough's CPU back (docs/performance-rounds.md, eighteenth round). A quote byte never
 * occurs inside a multi-byte character, and a name inside a JSON string has its quotes escaped
 * (`\"input_tokens\"`), so neither is taken.
 * `cut`: the window was cut at `to` out of a longer text, so a number running up to it may be
 * truncated and is skipped.
 */
export function readUsageCounters(bytes: Uint8Array, from: number, to: number, counters: UsageCounters, seen: Partial<Record<keyof Usage, number>>, cut = false): void {
  const { names, keys } = counters;
  for (let at = from; at < to; at++) {
    if (bytes[at] !== QUOTE) continue;
    const which = nameAt(bytes, at + 1, to, names);
    if (which < 0) continue;
    let i = skipSpace(bytes, at + names[which]!.length + 2, to);
    if (i >= to || bytes[i] !== COLON) continue;
    i = skipSpace(bytes, i + 1, to);
    const start = i;
    let value = 0;
    for (let byte = 0; i < to && (byte = bytes[i]!) >= ZERO && byte <= NINE; i++) value = value * 10 + (byte - ZERO);
    if (i === start || (cut && i === to)) continue;
    seen[keys[which]!] = value;
    at = i - 1;
  }
}

/** Which name (closing quote included) starts at `start`, or -1. */
function nameAt(bytes: Uint8Array, start: number, to: number, names: readonly Uint8Array[]): number {
  for (let k = 0; k < names.length; k++) {
    const name = names[k]!;
    const end = start + name.length;
    if (end >= to || bytes[end] !== QUOTE) continue;
    let i = 0;
    while (i < name.length && bytes[start + i] === name[i]) i++;
    if (i === name.length) return k;
  }
  return -1;
}

/** JSON's whitespace (and \v, \f, as the regular expression `\s` this replaced took them). */
function skipSpace(bytes: Uint8Array, at: number, to: number): number {
  while (at < to) {
    const byte = bytes[at]!;
    if (byte !== 0x20 && (byte < 0x09 || byte > 0x0d)) break;
    at++;
  }
  return at;
}
