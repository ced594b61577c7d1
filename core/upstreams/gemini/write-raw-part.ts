/** @see https://ai.google.dev/api/caching#Part */
import { GatewayError } from '../../errors.ts';
import type { RawPart } from '../../ir.ts';
import type { Warn } from '../types.ts';
import type { GeminiPart } from './wire-types.ts';

/**
 * A provider block kept verbatim: Gemini's own (executableCode, codeExecutionResult…) go back as
 * they came. An earlier web search (Anthropic's blocks, or what a Gemini search was written as)
 * is left out: Gemini keeps no search in its history either, the answer's text says what was
 * found, and Anthropic's results are encrypted for Claude alone. Undefined: nothing to send.
 */
export function writeGeminiRawPart(part: RawPart, path: string, warn: Warn): GeminiPart | undefined {
  if (part.origin === 'gemini') return part.block as GeminiPart;
  const what = typeof part.block.type === 'string' ? part.block.type : Object.keys(part.block)[0] ?? 'block';
  if (part.origin === 'anthropic' && isWebSearchBlock(part.block)) {
    if (what === 'web_search_tool_result' && holdsEncryptedResults(part.block)) warn(`${path}: Claude's encrypted web search results were left out; the answer's text that follows them was sent`);
    return undefined;
  }
  throw new GatewayError('invalid_request', `${path}: the ${part.origin} "${what}" block cannot be sent to a Gemini model`, { param: path });
}

function isWebSearchBlock(block: Record<string, unknown>): boolean {
  return block.type === 'web_search_tool_result' || (block.type === 'server_tool_use' && block.name === 'web_search');
}

function holdsEncryptedResults(block: Record<string, unknown>): boolean {
  return Array.isArray(block.content) && block.content.some((r) => typeof r === 'object' && r !== null && typeof (r as { encrypted_content?: unknown }).encrypted_content === 'string' && (r as { encrypted_content: string }).encrypted_content !== '');
}
