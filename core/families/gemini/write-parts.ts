/** @see https://ai.google.dev/api/caching#Part */
import type { DocumentPart, ImagePart, Part } from '../../ir.ts';
import { writeSignature } from '../../signature.ts';
import type { GeminiPart } from './schema.ts';
import { writeThoughtSignature } from './thought-signature.ts';

/**
 * IR parts of a model answer → Gemini parts. Reasoning text becomes `{text, thought:true}`; its
 * signature moves to the next non-thought part (a `functionCall` or text), or to a trailing
 * `{text:"", thoughtSignature}`: that is where Gemini itself puts signatures, and Gemini CLI drops
 * `thought` parts from its history, so a signature left on one would be lost. Empty unsigned text
 * is left out: callers add the `{text:""}` placeholder when nothing else remains.
 */
export function writeGeminiParts(parts: readonly Part[]): GeminiPart[] {
  const out: GeminiPart[] = [];
  let pending: string | undefined;
  /** Puts the waiting signature on `part`, or before it when `part` has its own. */
  const emit = (part: GeminiPart, own?: string) => {
    if (pending && !own) out.push({ ...part, thoughtSignature: pending });
    else {
      if (pending) out.push({ text: '', thoughtSignature: pending });
      out.push(own ? { ...part, thoughtSignature: own } : part);
    }
    pending = undefined;
  };
  for (const part of parts) {
    switch (part.type) {
      case 'reasoning': {
        if (pending) emit({ text: '' });
        if (part.text) out.push({ text: part.text, thought: true });
        pending = writeThoughtSignature(part);
        break;
      }
      case 'text':
        if (part.text || part.signature || pending) emit({ text: part.text }, part.signature && writeSignature(part.signature, 'gemini'));
        break;
      case 'tool-call':
        emit({ functionCall: { id: part.id, name: part.name, args: part.input } }, part.signature && writeSignature(part.signature, 'gemini'));
        break;
      case 'image':
      case 'document':
        emit(writeGeminiMedia(part));
        break;
      case 'tool-result':
        // Answers never hold results; kept only so every IR part has a mapping.
        emit({ functionResponse: { id: part.callId, name: part.name ?? '', response: { output: part.content.map((c) => (c.type === 'text' ? c.text : '')).join('') } } });
        break;
      case 'raw':
        // Only Gemini's own part kinds (code execution) mean anything to a Gemini client.
        if (part.origin === 'gemini') emit({ ...part.block }, typeof part.block.thoughtSignature === 'string' ? part.block.thoughtSignature : undefined);
        break;
      default:
        part satisfies never;
    }
  }
  if (pending) emit({ text: '' });
  return out;
}

export function writeGeminiMedia(part: ImagePart | DocumentPart): GeminiPart {
  const source = part.source;
  switch (source.kind) {
    case 'base64':
      return { inlineData: { mimeType: source.mediaType, data: source.data } };
    case 'text':
      return { inlineData: { mimeType: source.mediaType, data: encodeText(source.data) } };
    case 'url':
      return { fileData: { ...(source.mediaType && { mimeType: source.mediaType }), fileUri: source.url } };
    case 'file':
      return { fileData: { ...(source.mediaType && { mimeType: source.mediaType }), fileUri: source.fileId } };
  }
}

function encodeText(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
