import type { Usage } from '../ir.ts';

/** USD per million tokens. Cache prices default to the input price when absent. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Keyed by catalogue model id. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

// USD per million tokens × 1000 = nano-USD per token.
const NANO_PER_TOKEN = 1000;

/** What a call really cost, in integer nano-USD. */
export function costNanoUsd(usage: Usage, price: ModelPrice): number {
  const nano =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    (usage.cacheReadTokens ?? 0) * (price.cacheRead ?? price.input) +
    (usage.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input);
  return Math.round(nano * NANO_PER_TOKEN);
}

/**
 * The most a call can cost: every estimated input token at the dearest input rate (a prompt
 * may turn out to be a cache write, which costs more than plain input) and every allowed
 * output token. Rounded up so that settling never exceeds the reservation.
 */
export function worstCaseNanoUsd(estimatedInputTokens: number, maxOutputTokens: number, price: ModelPrice): number {
  const inputRate = Math.max(price.input, price.cacheRead ?? price.input, price.cacheWrite ?? price.input);
  return Math.ceil((estimatedInputTokens * inputRate + maxOutputTokens * price.output) * NANO_PER_TOKEN);
}

export const usdToNano = (usd: number): number => Math.round(usd * 1e9);
export const nanoToUsd = (nano: number): number => nano / 1e9;

/** Tokens a call counts against a TPM limit: everything it read plus everything it wrote. */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) + usage.outputTokens;
}
