/** @see https://docs.anthropic.com/en/api/messages */
import type { ChatRequest, UpstreamKind } from '../../ir.ts';
import type { Warn } from '../types.ts';
import { createToolIdMap, writeAnthropicMessages } from './write-messages.ts';
import { writeAnthropicSampling } from './write-sampling.ts';
import { writeAnthropicThinking } from './write-thinking.ts';
import { writeAnthropicToolChoice, writeAnthropicTools } from './write-tools.ts';
import { writeTextBlock } from './write-content.ts';
import type { AnthropicMessagesBody } from './wire-types.ts';

export const DEFAULT_MAX_TOKENS = 4096;

export interface AnthropicBodyOptions {
  warn: Warn;
  /**
   * The upstream kind whose thinking signatures verify here: 'anthropic' (default), or 'bedrock'
   * for Claude on Bedrock. Raw blocks and provider tools of origin 'anthropic' are always accepted.
   */
  origin?: UpstreamKind;
  /** The anthropic-version the body is for; 2026-10-21 removes sampling parameters and more. */
  version?: '2023-06-01' | '2026-10-21';
}

/**
 * ChatRequest → the Anthropic Messages body without `model` and `stream` (Bedrock's InvokeModel
 * takes exactly this plus `anthropic_version`). Throws GatewayError('invalid_request') for what
 * Anthropic cannot express; reports harmless changes through `warn` (each message once).
 */
export function writeAnthropicBody(req: ChatRequest, opts: AnthropicBodyOptions): AnthropicMessagesBody {
  const warn = once(opts.warn);
  const origin = opts.origin ?? 'anthropic';
  const strict2026 = opts.version === '2026-10-21';
  const native = req.source.family === 'anthropic';
  const ctx = { origin, strict2026, warn, toolId: createToolIdMap(), nativeSystem: native };

  let maxTokens = req.maxTokens;
  if (maxTokens === undefined) {
    warn(`max_tokens not given; sent ${DEFAULT_MAX_TOKENS} (Anthropic requires it)`);
    maxTokens = DEFAULT_MAX_TOKENS;
  }
  const body: AnthropicMessagesBody = { max_tokens: maxTokens, messages: [] };
  // A loop, not flatMap: V8 11 runs flatMap's callback and array per part on a slow path.
  const system = [];
  for (const part of req.system) {
    const block = writeTextBlock(part, 'system', ctx);
    if (block) system.push(block);
  }
  if (system.length) body.system = system;
  body.messages = writeAnthropicMessages(req.messages, ctx);

  if (req.tools?.length) body.tools = writeAnthropicTools(req.tools, origin);
  const thinking = writeAnthropicThinking(req.thinking, body, warn);
  let choice = req.toolChoice;
  if (choice && thinking && (choice.type === 'any' || choice.type === 'tool')) {
    warn(`tool_choice "${choice.type}" sent as "auto": forcing a tool is not allowed with thinking`);
    choice = { type: 'auto', ...(choice.disableParallel !== undefined ? { disableParallel: choice.disableParallel } : {}) };
  }
  if (choice && body.tools) body.tool_choice = writeAnthropicToolChoice(choice);
  else if (choice && choice.type !== 'none' && choice.type !== 'auto') warn(`tool_choice "${choice.type}" dropped: the request has no tools`);

  if (req.responseFormat) {
    if (req.responseFormat.schema) body.output_config = { ...body.output_config, format: { type: 'json_schema', schema: req.responseFormat.schema } };
    else warn('JSON output without a schema dropped: Anthropic structured output needs a JSON schema');
  }
  if (req.stop?.length) body.stop_sequences = req.stop;
  writeAnthropicSampling(req, body, { thinking, noSampling: strict2026, warn });
  if (req.userId !== undefined) body.metadata = { user_id: req.userId };

  // A Claude-style client's unmodelled fields (context_management, container, service_tier, …).
  if (native) {
    for (const [key, value] of Object.entries(req.source.extra)) {
      if (!(key in body) && key !== 'model' && key !== 'stream') body[key] = value;
    }
  }
  return body;
}

function once(warn: Warn): Warn {
  const seen = new Set<string>();
  return (message) => {
    if (seen.has(message)) return;
    seen.add(message);
    warn(message);
  };
}
