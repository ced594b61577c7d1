/** @see https://ai.google.dev/api/caching#Part */
import { GatewayError } from '../../errors.ts';
import type { RawPart } from '../../ir.ts';
import type { GeminiPart } from './wire-types.ts';

/** A provider block kept verbatim: Gemini's own (executableCode, codeExecutionResult…) go back as they came. */
export function writeGeminiRawPart(part: RawPart, path: string): GeminiPart {
  if (part.origin === 'gemini') return part.block as GeminiPart;
  const what = typeof part.block.type === 'string' ? part.block.type : Object.keys(part.block)[0] ?? 'block';
  throw new GatewayError('invalid_request', `${path}: the ${part.origin} "${what}" block cannot be sent to a Gemini model`, { param: path });
}
