/** @see https://ai.google.dev/gemini-api/docs/function-calling */
import { GatewayError } from '../../errors.ts';
import type { ToolResultPart } from '../../ir.ts';
import type { Warn } from '../types.ts';
import { isSyntheticCallId } from './tool-call-id.ts';
import { writeGeminiMedia } from './write-media.ts';
import type { GeminiPart } from './wire-types.ts';

/**
 * A tool result → a functionResponse part plus the media it returned as following inlineData /
 * fileData parts. Gemini needs the function's name, which only the call carries: `callNames`
 * maps call ids in the history to names.
 */
export function writeGeminiToolResult(part: ToolResultPart, path: string, callNames: Map<string, string>, warn: Warn): { response: GeminiPart; media: GeminiPart[] } {
  const name = part.name ?? callNames.get(part.callId);
  if (!name) {
    throw new GatewayError('invalid_request', `${path}: tool result "${part.callId}" has no matching tool call in the conversation; Gemini needs the function name`, { param: path });
  }
  const texts: string[] = [];
  const media: GeminiPart[] = [];
  part.content.forEach((item, k) => {
    if (item.type === 'text') texts.push(item.text);
    else if (item.type === 'document' && item.source.kind === 'text') texts.push(item.source.data);
    else media.push(writeGeminiMedia(item, `${path}.content.${k}`, warn));
  });
  const value = readOutput(texts.join('\n'));
  const id = part.callId && !isSyntheticCallId(part.callId) ? { id: part.callId } : {};
  return {
    response: { functionResponse: { ...id, name, response: part.isError ? { error: value } : { output: value } } },
    media,
  };
}

/** Gemini wants an object; JSON text is sent as JSON so the model sees structure, anything else as a string. */
function readOutput(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}
