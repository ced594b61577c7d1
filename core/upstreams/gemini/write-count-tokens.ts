/** @see https://ai.google.dev/api/tokens#method:-models.counttokens */
import { GatewayError } from '../../errors.ts';
import type { ChatRequest } from '../../ir.ts';
import type { UpstreamRequest, UpstreamResponse } from '../types.ts';
import { geminiHeaders, geminiModelPath, geminiUrl, type GeminiProviderConfig } from './endpoint.ts';
import { readGeminiError } from './read-error.ts';
import { writeGeminiBody } from './write-request.ts';

/**
 * ChatRequest → countTokens call. The `generateContentRequest` form is the one that counts the
 * system instruction and tools too (a bare `contents` body would undercount).
 */
export function writeGeminiCountTokens(req: ChatRequest, config: GeminiProviderConfig): UpstreamRequest {
  const body = writeGeminiBody({ ...req, stream: false }, () => {});
  const generateContentRequest = {
    model: geminiModelPath(req.model),
    contents: body.contents,
    ...(body.systemInstruction ? { systemInstruction: body.systemInstruction } : {}),
    ...(body.tools ? { tools: body.tools } : {}),
  };
  return { url: geminiUrl(config, req.model, 'countTokens', false), headers: geminiHeaders(config), body: JSON.stringify({ generateContentRequest }) };
}

/** Sends the count and reads `totalTokens`. */
export async function countGeminiTokens(
  req: ChatRequest,
  config: GeminiProviderConfig,
  provider: string,
  send: (request: UpstreamRequest) => Promise<UpstreamResponse>,
): Promise<number> {
  const res = await send(writeGeminiCountTokens(req, config));
  if (!res.ok) throw await readGeminiError(res, { provider, apiKey: config.apiKey });
  const body = (await res.json().catch(() => undefined)) as { totalTokens?: unknown } | undefined;
  // Proto JSON leaves zero values out: `{}` is a count of 0.
  if (typeof body === 'object' && body !== null && body.totalTokens === undefined) return 0;
  if (typeof body?.totalTokens !== 'number') throw new GatewayError('upstream', `Upstream "${provider}" sent a countTokens answer without totalTokens`);
  return body.totalTokens;
}
