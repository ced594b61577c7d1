/** @see https://docs.anthropic.com/en/api/messages#body-temperature */
import type { ChatRequest } from '../../ir.ts';
import type { Warn } from '../types.ts';
import type { AnthropicMessagesBody } from './wire-types.ts';

export interface SamplingOptions {
  thinking: boolean;
  /** anthropic-version 2026-10-21 removed temperature, top_p and top_k (400 even at defaults). */
  noSampling: boolean;
  warn: Warn;
}

/**
 * Sampling parameters within Anthropic's rules: none under 2026-10-21; no temperature or top_k
 * with thinking; never temperature and top_p together (Sonnet 4.5+ reject it; clients such as
 * Gemini CLI always send both); temperature at most 1. Every change is reported.
 */
export function writeAnthropicSampling(req: ChatRequest, body: AnthropicMessagesBody, opts: SamplingOptions): void {
  const { warn } = opts;
  let { temperature, topP, topK } = req;
  if (opts.noSampling) {
    for (const [name, value] of [['temperature', temperature], ['top_p', topP], ['top_k', topK]] as const) {
      if (value !== undefined) warn(`${name} dropped: anthropic-version 2026-10-21 does not accept it`);
    }
    temperature = topP = topK = undefined;
  }
  if (opts.thinking) {
    if (temperature !== undefined) warn('temperature dropped: not allowed with thinking');
    if (topK !== undefined) warn('top_k dropped: not allowed with thinking');
    temperature = topK = undefined;
  }
  if (temperature !== undefined && topP !== undefined) {
    warn('top_p dropped: Anthropic models reject temperature and top_p together (temperature kept)');
    topP = undefined;
  }
  if (temperature !== undefined && temperature > 1) {
    warn(`temperature ${temperature} lowered to 1 (Anthropic's maximum)`);
    temperature = 1;
  }
  if (temperature !== undefined) body.temperature = temperature;
  if (topP !== undefined) body.top_p = topP;
  if (topK !== undefined) body.top_k = topK;
  if (req.seed !== undefined) warn('seed dropped: Anthropic has no equivalent');
  if (req.presencePenalty !== undefined) warn('presence_penalty dropped: Anthropic has no equivalent');
  if (req.frequencyPenalty !== undefined) warn('frequency_penalty dropped: Anthropic has no equivalent');
}
