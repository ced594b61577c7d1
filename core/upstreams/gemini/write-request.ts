/** @see https://ai.google.dev/api/generate-content#request-body */
import { GatewayError } from '../../errors.ts';
import type { ChatRequest } from '../../ir.ts';
import { volatileLast } from '../openai/write-messages.ts';
import type { UpstreamRequest, Warn } from '../types.ts';
import { geminiHeaders, geminiUrl, type GeminiProviderConfig } from './endpoint.ts';
import { writeGeminiContents } from './write-contents.ts';
import { writeGeminiResponseSchema } from './write-schema.ts';
import { writeThinkingConfig } from './write-thinking.ts';
import { writeGeminiTools } from './write-tools.ts';
import { asksAnthropicWebSearch } from './write-web-search.ts';
import type { GeminiGenerateContentRequest, GeminiGenerationConfig } from './wire-types.ts';

const MAX_STOP_SEQUENCES = 5;

/** ChatRequest → a generateContent (or streamGenerateContent?alt=sse) call. */
export function writeGeminiRequest(req: ChatRequest, config: GeminiProviderConfig, warn: Warn): UpstreamRequest {
  const wire: UpstreamRequest = {
    url: geminiUrl(config, req.model, req.stream ? 'streamGenerateContent' : 'generateContent', req.stream),
    headers: geminiHeaders(config),
    body: JSON.stringify(writeGeminiBody(req, warn)),
  };
  // Google Search grounding is written back as Anthropic's web search blocks only when they were asked for.
  if (asksAnthropicWebSearch(req.tools)) wire.webSearch = true;
  return wire;
}

/** ChatRequest → GenerateContentRequest body (also what countTokens wraps). */
export function writeGeminiBody(req: ChatRequest, warn: Warn): GeminiGenerateContentRequest {
  // Gemini caches implicitly by prefix: Claude Code's per-request billing block goes last.
  const system = volatileLast(req.system).filter((p) => p.text).map((p) => ({ text: p.text }));
  // Written in body order, so the warnings come in that order too.
  const contents = writeGeminiContents(req.messages, req.model, warn);
  const tools = writeGeminiTools(req.tools, req.toolChoice, warn);
  // Gemini-family fields with no IR slot (safetySettings, cachedContent, …) suit this upstream as they are.
  const { generationConfig: extraGeneration, ...extra } = req.source.family === 'gemini' ? req.source.extra : {};
  const generationConfig = { ...(extraGeneration as GeminiGenerationConfig | undefined), ...writeGenerationConfig(req, warn) };
  return {
    ...extra,
    contents,
    ...(system.length ? { systemInstruction: { parts: system } } : {}),
    ...tools,
    ...(Object.keys(generationConfig).length ? { generationConfig } : {}),
  };
}

function writeGenerationConfig(req: ChatRequest, warn: Warn): GeminiGenerationConfig {
  if (req.stop && req.stop.length > MAX_STOP_SEQUENCES) {
    throw new GatewayError('invalid_request', `stop: Gemini accepts at most ${MAX_STOP_SEQUENCES} stop sequences (got ${req.stop.length})`, { param: 'stop' });
  }
  const config: GeminiGenerationConfig = {};
  if (req.maxTokens !== undefined) config.maxOutputTokens = req.maxTokens;
  if (req.temperature !== undefined) config.temperature = req.temperature;
  if (req.topP !== undefined) config.topP = req.topP;
  if (req.topK !== undefined) config.topK = req.topK;
  if (req.stop?.length) config.stopSequences = req.stop;
  if (req.seed !== undefined) config.seed = req.seed;
  if (req.presencePenalty !== undefined) config.presencePenalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) config.frequencyPenalty = req.frequencyPenalty;
  if (req.responseFormat) {
    config.responseMimeType = 'application/json';
    if (req.responseFormat.schema) {
      const { schema, changes } = writeGeminiResponseSchema(req.responseFormat.schema);
      if (changes.length) warn(`response format schema rewritten for Gemini: ${changes.join('; ')}`);
      config.responseJsonSchema = schema;
    }
  }
  const thinking = writeThinkingConfig(req.thinking, req.model, warn);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}
