/** @see https://ai.google.dev/api/generate-content#generationconfig */
import { GatewayError } from '../../errors.ts';
import type { ChatRequest, ReasoningEffort, ThinkingConfig } from '../../ir.ts';
import type { Warn } from '../../upstreams/types.ts';
import { readGeminiSchema } from './read-schema.ts';
import type { GeminiGenerationConfig } from './schema.ts';
import { readUnknownFields } from '../read-unknown-fields.ts';

type GenerationFields = Pick<
  ChatRequest,
  'maxTokens' | 'temperature' | 'topP' | 'topK' | 'stop' | 'seed' | 'presencePenalty' | 'frequencyPenalty' | 'thinking' | 'responseFormat'
>;

/** Fields read here; anything else in generationConfig is kept in `source.extra.generationConfig`. */
const READ = new Set([
  'temperature', 'topP', 'topK', 'candidateCount', 'maxOutputTokens', 'stopSequences', 'presencePenalty', 'frequencyPenalty',
  'seed', 'responseMimeType', 'responseSchema', 'responseJsonSchema', 'responseModalities', 'responseLogprobs', 'logprobs', 'thinkingConfig',
]);

export function readGeminiGenerationConfig(gc: GeminiGenerationConfig | undefined, warn: Warn): { fields: GenerationFields; rest?: Record<string, unknown> } {
  if (!gc) return { fields: {} };
  if (gc.candidateCount !== undefined && gc.candidateCount > 1) {
    throw refuse('generationConfig.candidateCount', 'only 1 candidate can be generated for this model');
  }
  const modalities = gc.responseModalities?.filter((m) => m.toUpperCase() !== 'TEXT') ?? [];
  if (modalities.length > 0) throw refuse('generationConfig.responseModalities', `${modalities.join(', ')} output is only available from Gemini models`);
  if (gc.responseLogprobs || gc.logprobs !== undefined) warn('generationConfig.responseLogprobs/logprobs dropped: not available for this model');

  const fields: GenerationFields = {};
  if (gc.maxOutputTokens !== undefined) fields.maxTokens = gc.maxOutputTokens;
  if (gc.temperature !== undefined) fields.temperature = gc.temperature;
  if (gc.topP !== undefined) fields.topP = gc.topP;
  if (gc.topK !== undefined) fields.topK = gc.topK;
  if (gc.stopSequences !== undefined && gc.stopSequences.length > 0) fields.stop = gc.stopSequences;
  if (gc.seed !== undefined) fields.seed = gc.seed;
  if (gc.presencePenalty !== undefined) fields.presencePenalty = gc.presencePenalty;
  if (gc.frequencyPenalty !== undefined) fields.frequencyPenalty = gc.frequencyPenalty;
  const thinking = readThinking(gc.thinkingConfig);
  if (thinking) fields.thinking = thinking;
  const format = readResponseFormat(gc);
  if (format) fields.responseFormat = format;

  const rest = readUnknownFields(gc, READ);
  return Object.keys(rest).length > 0 ? { fields, rest } : { fields };
}

/**
 * `thinkingBudget` 0 turns thinking off, -1 lets the model decide, N is a budget; a level is an
 * effort hint. `includeThoughts` (off by default on Gemini) decides whether reasoning text is shown.
 */
function readThinking(tc: GeminiGenerationConfig['thinkingConfig']): ThinkingConfig | undefined {
  if (!tc) return undefined;
  const level = tc.thinkingLevel === 'thinking_level_unspecified' ? undefined : tc.thinkingLevel;
  if (tc.thinkingBudget !== undefined && level !== undefined) {
    throw refuse('generationConfig.thinkingConfig', 'set thinkingBudget or thinkingLevel, not both');
  }
  const display = tc.includeThoughts ? 'summarized' : 'omitted';
  if (tc.thinkingBudget === 0) return { mode: 'disabled' };
  if (tc.thinkingBudget === -1) return { mode: 'adaptive', display };
  if (tc.thinkingBudget !== undefined) return { mode: 'enabled', budgetTokens: tc.thinkingBudget, display };
  if (level !== undefined) return { mode: 'adaptive', effort: level as ReasoningEffort, display };
  return tc.includeThoughts ? { mode: 'adaptive', display } : undefined;
}

function readResponseFormat(gc: GeminiGenerationConfig): ChatRequest['responseFormat'] {
  const mime = gc.responseMimeType?.toLowerCase();
  const hasSchema = gc.responseSchema !== undefined || gc.responseJsonSchema !== undefined;
  if (gc.responseSchema && gc.responseJsonSchema) {
    throw refuse('generationConfig.responseJsonSchema', 'set responseSchema or responseJsonSchema, not both');
  }
  if (mime === 'application/json') {
    const schema = gc.responseJsonSchema ?? (gc.responseSchema && readGeminiSchema(gc.responseSchema));
    return schema ? { type: 'json', schema } : { type: 'json' };
  }
  if (mime === 'text/x.enum') throw refuse('generationConfig.responseMimeType', 'text/x.enum is only available from Gemini models');
  if (mime !== undefined && mime !== 'text/plain') {
    throw refuse('generationConfig.responseMimeType', `must be text/plain or application/json (got "${gc.responseMimeType}")`);
  }
  if (hasSchema) throw refuse('generationConfig.responseMimeType', 'a response schema needs responseMimeType "application/json"');
  return undefined;
}

function refuse(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `${param}: ${message}`, { param });
}
