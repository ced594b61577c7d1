import type { Signature, SourceFamily, UpstreamKind } from './ir.ts';

/**
 * How reasoning state crosses families. A signature from the client family's own upstream kind
 * travels raw (so Anthropic ↔ Anthropic and Gemini ↔ Gemini stay byte-exact); any other origin is
 * wrapped as `sy1.<origin>.<value>`, which clients treat as opaque and send back unchanged.
 * Upstream writers restore a signature only to its own origin kind and drop it elsewhere.
 */
export const ENVELOPE_PREFIX = 'sy1.';
const NATIVE: Record<SourceFamily, UpstreamKind | undefined> = { anthropic: 'anthropic', gemini: 'gemini', openai: undefined };
const KINDS = new Set<UpstreamKind>(['anthropic', 'openai', 'gemini', 'bedrock']);

export function writeSignature(sig: Signature, family: SourceFamily): string {
  if (NATIVE[family] === sig.origin) return sig.value;
  return `${ENVELOPE_PREFIX}${sig.origin}.${sig.value}`;
}

export function readSignature(value: string | undefined | null, family: SourceFamily): Signature | undefined {
  if (!value) return undefined;
  if (value.startsWith(ENVELOPE_PREFIX)) {
    const dot = value.indexOf('.', ENVELOPE_PREFIX.length);
    const origin = value.slice(ENVELOPE_PREFIX.length, dot) as UpstreamKind;
    if (dot > 0 && KINDS.has(origin)) return { origin, value: value.slice(dot + 1) };
  }
  const native = NATIVE[family];
  return native ? { origin: native, value } : undefined;
}

/**
 * OpenAI-compatible hosts return reasoning text without any signature. The gateway mints one
 * from the text so that, when the client replays the turn, the writer can tell the text came
 * back unchanged from that kind of upstream and may restore it (e.g. DeepSeek's reasoning_content).
 */
export function mintReasoningSignature(text: string): Signature {
  return { origin: 'openai', value: `r${hash53(text)}` };
}

export function isMintedFor(text: string, sig: Signature | undefined): boolean {
  return sig?.origin === 'openai' && sig.value === `r${hash53(text)}`;
}

/** cyrb53: a fast 53-bit string hash, an integrity check against edits, not a secret. */
function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
