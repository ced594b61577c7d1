/** @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax */
import type { FinishReason } from '../../ir.ts';

const FINISH_BY_STOP_REASON: Record<string, FinishReason> = {
  end_turn: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  stop_sequence: 'stop-sequence',
  guardrail_intervened: 'content-filter',
  content_filtered: 'content-filter',
  model_context_window_exceeded: 'context-exceeded',
  // The model produced something Bedrock could not parse: the turn ended, but not normally.
  malformed_model_output: 'other',
  malformed_tool_use: 'other',
};

/** Converse `stopReason` → FinishReason; unknown future values become 'other' rather than an error. */
export function mapBedrockStopReason(reason: string | null | undefined): FinishReason {
  if (reason == null) return 'stop';
  return FINISH_BY_STOP_REASON[reason] ?? 'other';
}
