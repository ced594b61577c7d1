/** @see https://ai.google.dev/api#endpoints */
import type { ProviderConfig } from '../../config.ts';
import { readFixedConfig } from '../fixed-config.ts';

export type GeminiProviderConfig = Extract<ProviderConfig, { type: 'gemini' }>;
export type GeminiAction = 'generateContent' | 'streamGenerateContent' | 'countTokens';

/** `models/{id}` as the API names it; tuned models keep their own collection. */
export function geminiModelPath(model: string): string {
  return /^(models|tunedModels)\//.test(model) ? model : `models/${model}`;
}

/**
 * `{baseUrl}/{apiVersion}/models/{model}:{action}`, built like the official SDK does: the model is
 * not URL-encoded (ids carry dots and dashes) and a path prefix in baseUrl is kept.
 */
export function geminiUrl(config: GeminiProviderConfig, model: string, action: GeminiAction, sse: boolean): string {
  return `${readFixedConfig(config).base}/${config.apiVersion}/${geminiModelPath(model)}:${action}${sse ? '?alt=sse' : ''}`;
}

/** Configured extra headers first, so they can never replace the key or the content type. */
export function geminiHeaders(config: GeminiProviderConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of readFixedConfig(config).headers) headers[name] = value;
  headers['content-type'] = 'application/json';
  headers['x-goog-api-key'] = config.apiKey;
  return headers;
}
