/** @see https://platform.openai.com/docs/api-reference/chat/create */
import type { ProviderConfig } from '../../config.ts';

export type OpenAIProviderConfig = Extract<ProviderConfig, { type: 'openai' }>;

export type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'file'; file: { file_data: string; filename: string } };

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type OpenAIMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | { role: 'tool'; tool_call_id: string; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: OpenAIToolCall[];
      /** Only the field named by the provider's `reasoningField` is ever set. */
      reasoning_content?: string;
      reasoning?: string;
    };

export interface OpenAITool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
}

export type OpenAIToolChoice = 'auto' | 'required' | 'none' | { type: 'function'; function: { name: string } };

export interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  /** DeepSeek reports its prompt cache here instead of prompt_tokens_details. */
  prompt_cache_hit_tokens?: number;
}

export interface OpenAIErrorObject {
  message?: string;
  type?: string;
  code?: string | number | null;
  param?: string | null;
}

/** The fields read from a response message or a stream delta; hosts add more, which are ignored. */
export interface OpenAIMessageFields {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: Array<{
    index?: number;
    id?: string | null;
    type?: string;
    function?: { name?: string | null; arguments?: string | null };
  }> | null;
}

export interface OpenAIChoice {
  index?: number;
  message?: OpenAIMessageFields;
  delta?: OpenAIMessageFields;
  finish_reason?: string | null;
}

/** A chat.completion or a chat.completion.chunk. */
export interface OpenAIChatCompletion {
  id?: string;
  model?: string;
  choices?: OpenAIChoice[];
  usage?: OpenAIUsage | null;
  /** Groq puts the stream's usage here on the last chunk. */
  x_groq?: { usage?: OpenAIUsage | null };
  error?: OpenAIErrorObject | string;
}
