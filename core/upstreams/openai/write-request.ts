/** @see https://platform.openai.com/docs/api-reference/chat/create */
import type { ChatRequest } from '../../ir.ts';
import type { UpstreamRequest, Warn } from '../types.ts';
import { mapOpenAIReasoningEffort } from './map-reasoning-effort.ts';
import { writeOpenAIMessages } from './write-messages.ts';
import { writeOpenAIToolChoice, writeOpenAITools } from './write-tools.ts';
import type { OpenAIProviderConfig } from './types.ts';
import { readFixedConfig } from '../fixed-config.ts';
import { writeOpenAIUser } from './write-user.ts';

/** ChatRequest → POST {baseUrl}/chat/completions. Throws GatewayError for what the host cannot take. */
export function writeOpenAIRequest(req: ChatRequest, name: string, config: OpenAIProviderConfig, warn: Warn): UpstreamRequest {
  const seen = new Set<string>();
  const once: Warn = (message) => {
    if (seen.has(message)) return;
    seen.add(message);
    warn(message);
  };
  const body: Record<string, unknown> = {
    model: req.model,
    messages: writeOpenAIMessages(req, { name, config, warn: once }),
  };
  if (req.maxTokens !== undefined) body[config.maxTokensField] = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) once('top_k: dropped (not part of the OpenAI chat completions API)');
  if (req.stop?.length) body.stop = req.stop;
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.presencePenalty !== undefined) body.presence_penalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) body.frequency_penalty = req.frequencyPenalty;
  // OpenAI rejects tool_choice and parallel_tool_calls when no tools are sent.
  if (req.tools?.length) Object.assign(body, { tools: writeOpenAITools(req.tools, name) }, writeOpenAIToolChoice(req.toolChoice));
  const effort = mapOpenAIReasoningEffort(req.thinking);
  if (effort) {
    body.reasoning_effort = effort.effort;
    if (!effort.exact) once(`thinking: sent as reasoning_effort "${effort.effort}"`);
  }
  if (req.responseFormat) {
    const { schema, name: schemaName } = req.responseFormat;
    body.response_format = schema ? { type: 'json_schema', json_schema: { name: schemaName ?? 'response', schema } } : { type: 'json_object' };
  }
  if (req.userId !== undefined) body.user = writeOpenAIUser(req.userId);
  if (req.stream) {
    body.stream = true;
    // Without this, hosts send no usage at all on streams.
    body.stream_options = { include_usage: true };
  }
  writeExtras(req, body, once);
  return { url: chatUrlOf(config), headers: writeHeaders(config), body: JSON.stringify(body) };
}

/**
 * Fields an OpenAI-style client sent that the IR has no slot for (logprobs, service_tier, vLLM's
 * chat_template_kwargs…) go through unchanged; they never override what was written above.
 * Other families' extras mean nothing to this host.
 */
function writeExtras(req: ChatRequest, body: Record<string, unknown>, warn: Warn): void {
  const keys = Object.keys(req.source.extra);
  if (!keys.length) return;
  if (req.source.family !== 'openai') {
    warn(`ignored by OpenAI-compatible host: ${keys.join(', ')}`);
    return;
  }
  for (const key of keys) if (!(key in body)) body[key] = req.source.extra[key];
}

function writeHeaders(config: OpenAIProviderConfig): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  // Lower-cased so a configured `Authorization` replaces ours instead of being sent twice.
  for (const [key, value] of readFixedConfig(config).headers) headers[key] = value;
  return headers;
}

const chatUrls = new WeakMap<OpenAIProviderConfig, string>();

/** Worked out on a provider's first call, like readFixedConfig's parts. */
function chatUrlOf(config: OpenAIProviderConfig): string {
  let url = chatUrls.get(config);
  if (url === undefined) chatUrls.set(config, (url = chatUrl(config.baseUrl)));
  return url;
}

/** A query string in the base URL (Azure's `?api-version=`) stays after the path. */
function chatUrl(baseUrl: string): string {
  const q = baseUrl.indexOf('?');
  const path = q < 0 ? baseUrl : baseUrl.slice(0, q);
  const query = q < 0 ? '' : baseUrl.slice(q);
  return `${path.replace(/\/+$/, '')}/chat/completions${query}`;
}
