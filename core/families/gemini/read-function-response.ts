/** @see https://ai.google.dev/api/caching#FunctionResponse */
import type { ToolResultPart } from '../../ir.ts';
import { readGeminiFileData, readGeminiInlineData } from './read-media.ts';
import type { GeminiPart } from './schema.ts';

type FunctionResponse = NonNullable<GeminiPart['functionResponse']>;

/**
 * `response` is an object that by convention holds `output` or `error`. A lone `output`, `result`
 * or `error` is unwrapped so the other model sees the value rather than the envelope; anything
 * else is sent as the whole object's JSON. Media `parts` (Gemini 3) follow the text.
 */
export function readGeminiFunctionResponse(fr: FunctionResponse, callId: string, path: string): ToolResultPart {
  const response = fr.response ?? {};
  const keys = Object.keys(response);
  const isError = 'error' in response && !('output' in response) && !('result' in response);
  const value = keys.length === 1 && ['output', 'result', 'error'].includes(keys[0]!) ? response[keys[0]!] : response;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const media = (fr.parts ?? []).flatMap((p, i) => {
    if (p.inlineData) return [readGeminiInlineData(p.inlineData, `${path}.parts.${i}.inlineData`)];
    if (p.fileData) return [readGeminiFileData(p.fileData, `${path}.parts.${i}.fileData`)];
    return [];
  });
  return {
    type: 'tool-result',
    callId,
    name: fr.name,
    content: [{ type: 'text', text }, ...media],
    ...(isError && { isError: true }),
  };
}
