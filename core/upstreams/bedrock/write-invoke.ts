/** @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html */
import type { ChatRequest } from '../../ir.ts';
import { writeAnthropicBody } from '../anthropic/index.ts';
import { withoutForeignThinking } from '../anthropic/write-passthrough.ts';
import type { Warn } from '../types.ts';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * Betas Bedrock accepts for Claude; any other value is a 400 "invalid beta flag", and clients such
 * as Claude Code send several Bedrock does not know. Per-model limits are left to Bedrock.
 */
const BEDROCK_BETAS = new Set([
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29',
]);

/**
 * Betas Bedrock knows under another name. Tool search is `advanced-tool-use-2025-11-20` on the
 * Claude API and `tool-search-tool-2025-10-19` on Bedrock (Claude Code sends each to its own);
 * dropped instead, a request with deferred tools is a 400 on `defer_loading`: Claude Code 2.1.332
 * sent each step three times, then with every tool in full.
 */
const BEDROCK_NAMES: Record<string, string> = {
  'advanced-tool-use-2025-11-20': 'tool-search-tool-2025-10-19',
};

/** Claude on Bedrock (foundation model, inference profile `us.`/`eu.`/`global.`…, or an ARN naming one). */
export function isBedrockClaude(modelId: string): boolean {
  return /(^|[.:/])anthropic\./.test(modelId);
}

/** Splits `anthropic-beta` values (comma lists) and keeps those Bedrock accepts, under its names; returns the rest too. */
export function filterBedrockBetas(values: readonly string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const value of values.flatMap((v) => v.split(','))) {
    const beta = BEDROCK_NAMES[value.trim()] ?? value.trim();
    if (!beta || kept.includes(beta)) continue;
    (BEDROCK_BETAS.has(beta) ? kept : dropped).push(beta);
  }
  return { kept, dropped };
}

/**
 * ChatRequest → InvokeModel body: the Anthropic Messages body (same writer as the Anthropic
 * upstream, signatures checked against origin 'bedrock') without model and stream, plus
 * anthropic_version and the betas as a body array (Bedrock ignores the header).
 */
export function writeBedrockInvokeBody(req: ChatRequest, warn: Warn): Record<string, unknown> {
  const body: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...writeAnthropicBody(req, { warn, origin: 'bedrock' }) };
  // A Claude-style client's extra body fields must not override what Bedrock's URL and rules decide.
  body.anthropic_version = BEDROCK_ANTHROPIC_VERSION;
  delete body.model;
  delete body.stream;
  delete body.anthropic_beta;
  if (req.source.family === 'anthropic' && req.source.betas?.length) {
    const { kept, dropped } = filterBedrockBetas(req.source.betas);
    if (dropped.length) warn(`anthropic-beta values Bedrock does not accept were dropped: ${dropped.join(', ')}`);
    if (kept.length) body.anthropic_beta = kept;
  }
  return body;
}

/**
 * A Claude-style client's own body for InvokeModel: `model` and `stream` removed (the URL says
 * both), anthropic_version set, the client's betas (header and any body array) filtered, and
 * thinking signed by other upstreams removed.
 */
export function writeBedrockPassthroughBody(clientBody: Record<string, unknown>, betaHeader: string | null, warn?: Warn): Record<string, unknown> {
  const { model: _model, stream: _stream, anthropic_version: _version, anthropic_beta: bodyBetas, ...rest } = withoutForeignThinking(clientBody, 'bedrock', warn);
  const body: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest };
  const values = [...(betaHeader ? [betaHeader] : []), ...(Array.isArray(bodyBetas) ? bodyBetas.filter((b): b is string => typeof b === 'string') : [])];
  const { kept, dropped } = filterBedrockBetas(values);
  if (dropped.length) warn?.(`anthropic-beta values Bedrock does not accept were dropped: ${dropped.join(', ')}`);
  if (kept.length) body.anthropic_beta = kept;
  return body;
}

/**
 * CountTokens input for Claude: the InvokeModel body as a blob (base64 in the JSON wire format).
 * A count_tokens body has no max_tokens but InvokeModel requires one (above any thinking budget).
 */
export function writeBedrockCountTokensInput(invokeBody: Record<string, unknown>): { invokeModel: { body: string } } {
  const body = { ...invokeBody };
  if (typeof body.max_tokens !== 'number') {
    const budget = (body.thinking as { budget_tokens?: unknown } | undefined)?.budget_tokens;
    body.max_tokens = typeof budget === 'number' ? budget + 1 : 1;
  }
  return { invokeModel: { body: utf8ToBase64(JSON.stringify(body)) } };
}

function utf8ToBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
