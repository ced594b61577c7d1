/** @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices */
import type { FinishReason } from '../../ir.ts';

/**
 * OpenAI does not say which stop string matched, so `stop` is always a natural stop. A missing
 * reason (some hosts end without one) counts as `stop`; unknown values from other hosts are `other`.
 */
export function mapOpenAIFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
    case null:
    case undefined:
    case '':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    // OpenRouter ends a choice this way when the provider behind it failed.
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}
