/** @see https://ai.google.dev/gemini-api/docs/thought-signatures */
import type { ReasoningPart, Signature } from '../../ir.ts';
import { readSignature, writeSignature } from '../../signature.ts';

/**
 * `thoughtSignature` is the one field Gemini clients echo back faithfully, so it carries all
 * reasoning state from other upstreams. A Gemini signature travels raw. Any other origin is
 * wrapped by writeSignature, and its value here is one of:
 *   `<signature>`                       reasoning whose text was empty
 *   `t:<base64url(text)>:<signature>`   reasoning with text: Claude verifies text and signature
 *                                       together, and Gemini CLI drops `thought` parts from its
 *                                       history, so the text must ride along with the signature
 *   `redacted:<data>`                   Anthropic redacted_thinking
 * Signatures are base64, which has no ':', so the forms cannot be confused.
 */
const TEXT = 't:';
const REDACTED = 'redacted:';

export function writeThoughtSignature(part: Pick<ReasoningPart, 'text' | 'signature' | 'redacted'>): string | undefined {
  if (part.redacted !== undefined) {
    return writeSignature({ origin: part.signature?.origin ?? 'anthropic', value: REDACTED + part.redacted }, 'gemini');
  }
  const sig = part.signature;
  if (!sig) return undefined;
  if (sig.origin === 'gemini' || !part.text) return writeSignature(sig, 'gemini');
  return writeSignature({ origin: sig.origin, value: `${TEXT}${encodeText(part.text)}:${sig.value}` }, 'gemini');
}

export interface ReadThoughtSignature {
  /** A Gemini signature, to stay on the part that carried it. */
  native?: Signature;
  /** The reasoning a foreign signature stands for; `withText` when it carries its own text. */
  reasoning?: ReasoningPart;
  withText?: boolean;
}

export function readThoughtSignature(value: string | undefined): ReadThoughtSignature | undefined {
  const sig = readSignature(value, 'gemini');
  if (!sig) return undefined;
  if (sig.origin === 'gemini') return { native: sig };
  if (sig.value.startsWith(REDACTED)) return { reasoning: { type: 'reasoning', text: '', redacted: sig.value.slice(REDACTED.length) } };
  const end = sig.value.startsWith(TEXT) ? sig.value.indexOf(':', TEXT.length) : -1;
  const text = end > 0 ? decodeText(sig.value.slice(TEXT.length, end)) : undefined;
  if (text === undefined) return { reasoning: { type: 'reasoning', text: '', signature: sig } };
  return { reasoning: { type: 'reasoning', text, signature: { origin: sig.origin, value: sig.value.slice(end + 1) } }, withText: true };
}

function encodeText(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeText(b64url: string): string | undefined {
  try {
    const binary = atob(b64url.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
