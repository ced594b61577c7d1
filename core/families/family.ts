import type { GatewayError } from '../errors.ts';
import { writeAnthropicError } from './anthropic/write-error.ts';
import { writeGeminiError } from './gemini/write-error.ts';
import { writeOpenAIError } from './openai/write-error.ts';

/** The client-facing API families. */
export type Family = 'openai' | 'anthropic' | 'gemini';

export const ERROR_WRITERS: Record<Family, (err: GatewayError) => { status: number; body: unknown }> = {
  openai: writeOpenAIError,
  anthropic: writeAnthropicError,
  gemini: writeGeminiError,
};
