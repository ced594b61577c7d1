/** @see https://docs.anthropic.com/en/api/messages#response-stop-reason */
import type { FinishReason } from '../../ir.ts';

const FINISH_BY_STOP_REASON: Record<string, FinishReason> = {
  end_turn: 'stop',
  max_tokens: 'length',
  stop_sequence: 'stop-sequence',
  tool_use: 'tool-calls',
  pause_turn: 'pause',
  refusal: 'refusal',
  model_context_window_exceeded: 'context-exceeded',
};

/** Unknown future stop reasons become 'other' rather than an error. */
export function mapAnthropicStopReason(reason: string | null | undefined): FinishReason {
  if (reason == null) return 'stop';
  return FINISH_BY_STOP_REASON[reason] ?? 'other';
}
