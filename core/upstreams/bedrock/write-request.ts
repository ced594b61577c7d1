/** @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html */
import { GatewayError } from '../../errors.ts';
import type { CacheMark, ChatRequest, ToolDef } from '../../ir.ts';
import { volatileLast } from '../openai/write-messages.ts';
import type { Warn } from '../types.ts';
import { type BedrockContentBlock, writeBedrockPart, writeCachePoint } from './write-content.ts';

export interface BedrockMessage {
  role: 'user' | 'assistant';
  content: BedrockContentBlock[];
}

export type BedrockSystemBlock = { text: string } | { cachePoint: { type: 'default'; ttl?: string } };

export interface BedrockToolSpec {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> }; strict?: boolean };
}

export interface BedrockConverseRequest {
  messages: BedrockMessage[];
  system?: BedrockSystemBlock[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: {
    tools: Array<BedrockToolSpec | { cachePoint: { type: 'default'; ttl?: string } }>;
    toolChoice?: { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };
  };
  additionalModelRequestFields?: Record<string, unknown>;
  outputConfig?: { textFormat: { type: 'json_schema'; structure: { jsonSchema: { schema: string; name?: string } } } };
}

/** gpt-oss takes its reasoning effort as a model-native field; it cannot turn reasoning off. */
const GPT_OSS = /(^|[.:/])openai\.gpt-oss/;
const EFFORTS = { minimal: 'low', low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' } as const;

/**
 * ChatRequest → Converse / ConverseStream body, for models other than Claude (those go through
 * InvokeModel with the Anthropic-native body). Bedrock's own rules are applied here: user first,
 * strict alternation, no blank text, toolConfig whenever history holds tool blocks.
 */
export function writeBedrockConverseRequest(req: ChatRequest, warn: Warn): BedrockConverseRequest {
  const system: BedrockSystemBlock[] = [];
  const pushSystem = (text: string, cache?: CacheMark) => {
    if (text.trim()) system.push({ text });
    if (cache) system.push(writeCachePoint(cache));
  };
  // Claude Code's per-request billing block would put every cachePoint's prefix out of reach.
  for (const part of volatileLast(req.system)) pushSystem(part.text, part.cache);

  const names = new Set<string>();
  const messages: BedrockMessage[] = [];
  req.messages.forEach((message, i) => {
    if (message.role === 'system') {
      warn(`messages.${i}: a mid-conversation system message was moved into the system prompt (Bedrock has no such turn)`);
      for (const part of message.parts) if (part.type === 'text') pushSystem(part.text, part.cache);
      return;
    }
    const content = message.parts.flatMap((part, j) => writeBedrockPart(part, { path: `messages.${i}.parts.${j}`, names }));
    if (!content.length) return;
    const last = messages.at(-1);
    if (last?.role === message.role) last.content.push(...content);
    else messages.push({ role: message.role, content });
  });
  if (messages[0]?.role !== 'user') {
    warn('Bedrock requires the conversation to start with a user turn: a "Continue." user turn was added');
    messages.unshift({ role: 'user', content: [{ text: 'Continue.' }] });
  }

  const body: BedrockConverseRequest = { messages };
  if (system.length) body.system = system;
  const inference = writeInferenceConfig(req);
  if (inference) body.inferenceConfig = inference;
  const toolConfig = writeToolConfig(req, messages, warn);
  if (toolConfig) body.toolConfig = toolConfig;
  const extra = writeModelFields(req, warn);
  if (extra) body.additionalModelRequestFields = extra;
  if (req.responseFormat) {
    const schema = req.responseFormat.schema ?? { type: 'object' };
    body.outputConfig = {
      textFormat: {
        type: 'json_schema',
        structure: { jsonSchema: { schema: JSON.stringify(schema), ...(req.responseFormat.name ? { name: req.responseFormat.name } : {}) } },
      },
    };
  }
  if (req.seed !== undefined) warn('seed is not supported by Bedrock Converse and was dropped');
  if (req.presencePenalty !== undefined) warn('presence_penalty is not supported by Bedrock Converse and was dropped');
  if (req.frequencyPenalty !== undefined) warn('frequency_penalty is not supported by Bedrock Converse and was dropped');
  if (req.userId !== undefined) warn('the end-user id is not sent to Bedrock Converse');
  return body;
}

function writeInferenceConfig(req: ChatRequest): BedrockConverseRequest['inferenceConfig'] {
  const out: NonNullable<BedrockConverseRequest['inferenceConfig']> = {};
  if (req.maxTokens !== undefined) out.maxTokens = req.maxTokens;
  if (req.temperature !== undefined) out.temperature = req.temperature;
  if (req.topP !== undefined) out.topP = req.topP;
  if (req.stop?.length) out.stopSequences = req.stop;
  return Object.keys(out).length ? out : undefined;
}

function writeToolConfig(req: ChatRequest, messages: BedrockMessage[], warn: Warn): BedrockConverseRequest['toolConfig'] {
  const historyHasTools = messages.some((m) => m.content.some((b) => 'toolUse' in b || 'toolResult' in b));
  const choice = req.toolChoice;
  let tools = (req.tools ?? []).flatMap((tool, i) => writeTool(tool, i));
  if (choice?.type === 'none' && tools.length) {
    if (!historyHasTools) return undefined;
    warn('tool_choice "none" cannot be enforced on Bedrock while the history holds tool calls: tools stay available');
  }
  if (!tools.length && historyHasTools) tools = stubTools(messages);
  if (!tools.length) return undefined;
  if (choice && choice.type !== 'none' && choice.disableParallel) warn('disabling parallel tool calls is not supported by Bedrock Converse');
  const config: NonNullable<BedrockConverseRequest['toolConfig']> = { tools };
  if (choice?.type === 'auto') config.toolChoice = { auto: {} };
  else if (choice?.type === 'any') config.toolChoice = { any: {} };
  else if (choice?.type === 'tool') config.toolChoice = { tool: { name: choice.name } };
  return config;
}

function writeTool(tool: ToolDef, i: number): NonNullable<BedrockConverseRequest['toolConfig']>['tools'] {
  if (tool.type === 'provider') {
    throw new GatewayError('invalid_request', `tools.${i}: the provider-defined tool "${tool.name}" is not available on Bedrock Converse`, { param: `tools.${i}` });
  }
  const spec: BedrockToolSpec = {
    toolSpec: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: { json: tool.inputSchema },
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
    },
  };
  return tool.cache ? [spec, writeCachePoint(tool.cache)] : [spec];
}

/** Bedrock refuses tool blocks without toolConfig: declare the tools the history used, with open schemas. */
function stubTools(messages: BedrockMessage[]): BedrockToolSpec[] {
  const names = new Set<string>();
  for (const m of messages) for (const b of m.content) if ('toolUse' in b) names.add(b.toolUse.name);
  if (!names.size) names.add('unused_tool');
  return [...names].map((name) => ({ toolSpec: { name, inputSchema: { json: { type: 'object', properties: {} } } } }));
}

function writeModelFields(req: ChatRequest, warn: Warn): Record<string, unknown> | undefined {
  const fields: Record<string, unknown> = {};
  const gptOss = GPT_OSS.test(req.model);
  if (req.topK !== undefined) warn(`top_k is not supported by "${req.model}" through Converse and was dropped`);
  const thinking = req.thinking;
  if (thinking && thinking.mode !== 'disabled') {
    if (gptOss) {
      const effort = thinking.effort ? EFFORTS[thinking.effort] : effortForBudget(thinking.budgetTokens);
      if (thinking.effort && thinking.effort !== effort) warn(`reasoning effort "${thinking.effort}" was sent to gpt-oss as "${effort}"`);
      if (!thinking.effort && thinking.budgetTokens !== undefined) warn(`a thinking budget of ${thinking.budgetTokens} tokens was sent to gpt-oss as reasoning effort "${effort}"`);
      fields.reasoning_effort = effort;
    } else {
      warn(`thinking settings are not supported for "${req.model}" through Converse and were dropped`);
    }
  }
  return Object.keys(fields).length ? fields : undefined;
}

/** Budget tiers shared with the other translators: ≤2048 low, ≤8192 medium, above high. */
function effortForBudget(budget: number | undefined): 'low' | 'medium' | 'high' {
  if (budget === undefined) return 'medium';
  return budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}
