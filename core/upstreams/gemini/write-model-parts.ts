/** @see https://ai.google.dev/gemini-api/docs/thought-signatures */
import { GatewayError } from '../../errors.ts';
import type { Part } from '../../ir.ts';
import type { Warn } from '../types.ts';
import { isSyntheticCallId } from './tool-call-id.ts';
import { writeGeminiMedia } from './write-media.ts';
import { writeGeminiRawPart } from './write-raw-part.ts';
import type { GeminiPart } from './wire-types.ts';

/**
 * An assistant turn → model parts, restoring Gemini thoughtSignatures where they were received.
 * A reasoning part with empty text and a Gemini signature is a carrier (other families keep a
 * Gemini signature in an empty thinking block placed where it arrived): its signature goes onto
 * the next text or functionCall part, or, at the end of the turn, onto an empty text part, which
 * is how Gemini itself sends a turn's closing signature.
 */
export function writeGeminiModelParts(parts: Part[], path: string, warn: Warn): { parts: GeminiPart[]; droppedReasoning: number } {
  const out: GeminiPart[] = [];
  let pending: string | undefined;
  let droppedReasoning = 0;
  const flush = () => {
    if (pending) out.push({ text: '', thoughtSignature: pending });
    pending = undefined;
  };
  const signed = (part: GeminiPart, own: string | undefined): GeminiPart => {
    if (own) flush();
    const signature = own ?? pending;
    pending = undefined;
    return signature ? { ...part, thoughtSignature: signature } : part;
  };
  parts.forEach((part, j) => {
    const at = `${path}.parts.${j}`;
    switch (part.type) {
      case 'text': {
        const own = part.signature?.origin === 'gemini' ? part.signature.value : undefined;
        if (part.text || own) out.push(signed({ text: part.text }, own));
        break;
      }
      case 'reasoning': {
        const own = part.signature?.origin === 'gemini' && !part.redacted ? part.signature.value : undefined;
        if (own && !part.text) {
          flush();
          pending = own;
        } else if (own) out.push({ text: part.text, thought: true, thoughtSignature: own });
        else if (part.text || part.redacted || part.signature) droppedReasoning++;
        break;
      }
      case 'tool-call': {
        const own = part.signature?.origin === 'gemini' ? part.signature.value : undefined;
        const id = part.id && !isSyntheticCallId(part.id) ? { id: part.id } : {};
        out.push(signed({ functionCall: { ...id, name: part.name, args: part.input } }, own));
        break;
      }
      case 'image':
      case 'document':
        out.push(writeGeminiMedia(part, at, warn));
        break;
      case 'raw': {
        const raw = writeGeminiRawPart(part, at, warn);
        if (raw) out.push(raw);
        break;
      }
      case 'tool-result':
        throw new GatewayError('invalid_request', `${at}: a tool result cannot be part of an assistant message`, { param: at });
      default:
        part satisfies never;
    }
  });
  flush();
  return { parts: out, droppedReasoning };
}
