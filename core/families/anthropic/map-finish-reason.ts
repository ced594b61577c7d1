/** @see https://platform.claude.com/docs/en/api/messages#response-stop-reason */
import type { FinishReason } from '../../ir.ts';

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

export function mapAnthropicFinishReason(reason: FinishReason): AnthropicStopReason {
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'stop-sequence':
      return 'stop_sequence';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
    case 'refusal':
      return 'refusal';
    case 'pause':
      return 'pause_turn';
    case 'context-exceeded':
      return 'model_context_window_exceeded';
    // The answer ended for a reason Anthropic has no word for; the content is still complete.
    case 'error':
    case 'other':
      return 'end_turn';
    default: {
      const unknown: never = reason;
      throw new Error(`unmapped finish reason ${String(unknown)}`);
    }
  }
}
