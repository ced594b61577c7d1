import type { GatewayError } from '../errors.ts';
import { writeAnthropicError } from './anthropic/write-error.ts';
import { writeGeminiError } from './gemini/write-error.ts';
import { writeOpenAIError } from './openai/write-error.ts';

/** The client-facing API families. */
export type Family = 'openai' | 'anthropic' | 'gemini';

/** A family's HTTP error answer; `requestId` is the answer's own `request-id`, for the families whose bodies repeat it. */
export const ERROR_WRITERS: Record<Family, (err: GatewayError, requestId?: string) => { status: number; body: unknown }> = {
  openai: writeOpenAIError,
  anthropic: writeAnthropicError,
  gemini: writeGeminiError,
};
