/** @see https://ai.google.dev/api/generate-content#method:-models.generatecontent */
import { GatewayError } from '../../errors.ts';
import type { ChatRequest, TextPart } from '../../ir.ts';
import type { Warn } from '../../upstreams/types.ts';
import { readGeminiContents } from './read-contents.ts';
import { readGeminiGenerationConfig } from './read-generation-config.ts';
import { readGeminiTools } from './read-tools.ts';
import type { GeminiGenerateContentRequest } from './schema.ts';
import { readUnknownFields } from '../read-unknown-fields.ts';

export interface ReadGeminiOptions {
  /** The catalog model id (routing replaces it with each route's upstream id). */
  model: string;
  stream: boolean;
  warn: Warn;
}

/** Top-level fields the reader turns into IR; every other one is kept in `source.extra`. */
const READ = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']);

/**
 * A Gemini `GenerateContentRequest` → ChatRequest. Runs only for routes that translate (a Gemini
 * upstream takes the body as is), so what only Gemini can do is refused here with the field named.
 * `safetySettings` and unknown fields stay in `source.extra`.
 */
export function readGeminiRequest(body: GeminiGenerateContentRequest, opts: ReadGeminiOptions): ChatRequest {
  if (body.cachedContent !== undefined) {
    throw new GatewayError('invalid_request', 'cachedContent: cached contents are only available when the model is served by Gemini', { param: 'cachedContent' });
  }
  const { fields, rest } = readGeminiGenerationConfig(body.generationConfig, opts.warn);
  const extra = readUnknownFields(body, READ);
  if (rest) extra.generationConfig = rest;
  return {
    model: opts.model,
    system: readSystem(body.systemInstruction),
    messages: readGeminiContents(body.contents),
    stream: opts.stream,
    ...fields,
    ...readGeminiTools(body.tools, body.toolConfig, opts.warn),
    source: { family: 'gemini', extra },
  };
}

/** The instruction's role is ignored (the SDK sends `user`); only text parts make sense here. */
function readSystem(instruction: GeminiGenerateContentRequest['systemInstruction']): TextPart[] {
  if (instruction === undefined) return [];
  if (typeof instruction === 'string') return instruction ? [{ type: 'text', text: instruction }] : [];
  // A loop, not flatMap: V8 11 runs flatMap's callback and array per part on a slow path.
  const parts: TextPart[] = [];
  for (let i = 0; i < instruction.parts.length; i++) {
    const text = instruction.parts[i]!.text;
    if (text === undefined) {
      const param = `systemInstruction.parts.${i}`;
      throw new GatewayError('invalid_request', `${param}: system instructions may only hold text`, { param });
    }
    if (text) parts.push({ type: 'text', text });
  }
  return parts;
}
