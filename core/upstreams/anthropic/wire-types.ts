/** @see https://docs.anthropic.com/en/api/messages */
import type { ProviderConfig } from '../../config.ts';

export type AnthropicConfig = Extract<ProviderConfig, { type: 'anthropic' }>;

export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export type AnthropicSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string }
  | { type: 'text'; media_type: 'text/plain'; data: string };

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
  citations?: unknown[];
}

export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicSource;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicDocumentBlock {
  type: 'document';
  source: AnthropicSource;
  title?: string;
  context?: string;
  citations?: { enabled: boolean };
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicToolReferenceBlock {
  type: 'tool_reference';
  tool_name: string;
}
export type AnthropicToolResultContent = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicToolReferenceBlock;

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: AnthropicToolResultContent[];
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** A block the gateway relays without understanding it (server_tool_use, web_search_tool_result, …). */
export type AnthropicRawBlock = Record<string, unknown>;

export type AnthropicRequestBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicRawBlock;

export interface AnthropicMessageParam {
  role: 'user' | 'assistant' | 'system';
  content: AnthropicRequestBlock[];
}

export interface AnthropicFunctionTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  strict?: boolean;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export type AnthropicThinking =
  | { type: 'enabled'; budget_tokens: number; display?: 'summarized' | 'omitted' }
  | { type: 'adaptive'; display?: 'summarized' | 'omitted' }
  | { type: 'disabled' };

export type AnthropicEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface AnthropicOutputConfig {
  effort?: AnthropicEffort;
  format?: { type: 'json_schema'; schema: Record<string, unknown> };
}

/** The Messages body without `model` and `stream` (Bedrock InvokeModel takes exactly this plus anthropic_version). */
export interface AnthropicMessagesBody {
  max_tokens: number;
  system?: AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
  tools?: Array<AnthropicFunctionTool | AnthropicRawBlock>;
  tool_choice?: AnthropicToolChoice;
  thinking?: AnthropicThinking;
  output_config?: AnthropicOutputConfig;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  metadata?: { user_id: string };
  [extra: string]: unknown;
}

export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/** Response blocks are read loosely: unknown types become raw parts. */
export interface AnthropicResponseBlock {
  type: string;
  [field: string]: unknown;
}

export interface AnthropicMessage {
  id: string;
  model: string;
  content: AnthropicResponseBlock[];
  stop_reason: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage;
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}
