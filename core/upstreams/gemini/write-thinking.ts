/** @see https://ai.google.dev/gemini-api/docs/thinking */
import type { ReasoningEffort, ThinkingConfig } from '../../ir.ts';
import type { Warn } from '../types.ts';
import { readModelTraits, type GeminiModelTraits } from './model-traits.ts';
import type { GeminiThinkingConfig } from './wire-types.ts';

type Level = NonNullable<GeminiThinkingConfig['thinkingLevel']>;

/** Effort → Gemini 2.5 budget (the tiers of protocol digest C5). */
const BUDGET_BY_EFFORT: Record<ReasoningEffort, number> = { minimal: 512, low: 2048, medium: 8192, high: 16384, xhigh: 24576, max: 32768 };
const LEVEL_BY_EFFORT: Record<ReasoningEffort, Level> = { minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH', xhigh: 'HIGH', max: 'HIGH' };

/** Gemini 2.5 budget ranges; a value outside is a 400 upstream. 0 (off) is allowed where `off`. */
const RANGES: Record<GeminiModelTraits['tier'], { min: number; max: number; off: boolean } | undefined> = {
  pro: { min: 128, max: 32768, off: false },
  flash: { min: 1, max: 24576, off: true },
  'flash-lite': { min: 512, max: 24576, off: true },
  other: undefined,
};

/**
 * IR thinking → thinkingConfig. Gemini 3 takes a thinkingLevel, Gemini 2.5 a token budget (-1 =
 * dynamic). Every value that cannot be sent as asked is adjusted and reported, never silently.
 */
export function writeThinkingConfig(thinking: ThinkingConfig | undefined, model: string, warn: Warn): GeminiThinkingConfig | undefined {
  if (!thinking) return undefined;
  const traits = readModelTraits(model);
  if (traits.generation !== undefined && traits.generation < 2.5) {
    if (thinking.mode !== 'disabled') warn(`thinking: model "${model}" does not think; the thinking settings were dropped`);
    return undefined;
  }
  const includeThoughts = thinking.display !== 'omitted';
  if ((traits.generation ?? 0) >= 3) return writeLevel(thinking, traits, includeThoughts, warn);
  return writeBudget(thinking, traits, includeThoughts, warn);
}

function writeLevel(thinking: ThinkingConfig, traits: GeminiModelTraits, includeThoughts: boolean, warn: Warn): GeminiThinkingConfig {
  if (thinking.mode === 'disabled') {
    const level: Level = traits.tier === 'pro' ? 'LOW' : 'MINIMAL';
    warn(`thinking: Gemini 3 models cannot turn thinking off; thinkingLevel ${level} used`);
    return { thinkingLevel: level };
  }
  let level: Level | undefined;
  if (thinking.effort) {
    level = LEVEL_BY_EFFORT[thinking.effort];
    if (thinking.effort === 'xhigh' || thinking.effort === 'max') warn(`thinking: effort "${thinking.effort}" sent as thinkingLevel HIGH, Gemini's highest`);
  } else if (thinking.budgetTokens !== undefined) {
    const budget = thinking.budgetTokens;
    level = budget <= 2048 ? 'LOW' : budget <= 8192 ? 'MEDIUM' : 'HIGH';
    warn(`thinking: Gemini 3 takes a level, not a budget; budget ${budget} sent as thinkingLevel ${level}`);
  }
  // Gemini 3 Pro knows only LOW and HIGH.
  if (traits.tier === 'pro' && traits.generation === 3 && (level === 'MINIMAL' || level === 'MEDIUM')) {
    const to: Level = level === 'MINIMAL' ? 'LOW' : 'HIGH';
    warn(`thinking: thinkingLevel ${level} is not available on this model; ${to} used`);
    level = to;
  }
  return { ...(level ? { thinkingLevel: level } : {}), includeThoughts };
}

function writeBudget(thinking: ThinkingConfig, traits: GeminiModelTraits, includeThoughts: boolean, warn: Warn): GeminiThinkingConfig {
  const range = traits.generation === undefined ? undefined : RANGES[traits.tier];
  if (thinking.mode === 'disabled') {
    if (!range || range.off) return { thinkingBudget: 0 };
    warn(`thinking: this model cannot turn thinking off; the minimum budget ${range.min} was used`);
    return { thinkingBudget: range.min };
  }
  const asked = thinking.budgetTokens ?? (thinking.effort ? BUDGET_BY_EFFORT[thinking.effort] : undefined);
  if (asked === undefined || asked < 0) return { thinkingBudget: -1, includeThoughts };
  if (range && (asked < range.min || asked > range.max)) {
    const budget = Math.min(range.max, Math.max(range.min, asked));
    warn(`thinking: budget ${asked} is outside this model's range ${range.min}-${range.max}; ${budget} used`);
    return { thinkingBudget: budget, includeThoughts };
  }
  return { thinkingBudget: asked, includeThoughts };
}
