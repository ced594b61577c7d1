/** @see https://docs.anthropic.com/en/api/messages */
import { GatewayError } from '../../errors.ts';
import type { UpstreamKind } from '../../ir.ts';
import { ENVELOPE_PREFIX, readSignature } from '../../signature.ts';
import type { PassthroughCall, UpstreamRequest, Warn } from '../types.ts';
import { anthropicUrl, writeAnthropicHeaders } from './write-headers.ts';
import type { AnthropicConfig } from './wire-types.ts';

/**
 * Same-family fast path: the client's body with only `model` rewritten. Of the client's headers
 * only anthropic-version and anthropic-beta travel (Claude Code's context_management needs its
 * beta); its credentials are replaced by the gateway's. Thinking blocks another upstream signed
 * are the one exception (see withoutForeignThinking).
 */
export function writeAnthropicPassthrough(call: PassthroughCall, config: AnthropicConfig): UpstreamRequest {
  if (call.action !== 'messages' && call.action !== 'count_tokens') {
    throw new GatewayError('internal', `Anthropic upstream cannot pass through "${call.action}"`);
  }
  const path = call.action === 'messages' ? '/v1/messages' : '/v1/messages/count_tokens';
  const version = call.headers.get('anthropic-version') || config.version;
  const beta = call.headers.get('anthropic-beta') ?? undefined;
  return {
    url: anthropicUrl(config, path),
    headers: writeAnthropicHeaders(config, version, beta),
    body: writeBody(call),
  };
}

function writeBody({ source, target, warn }: PassthroughCall): string | Uint8Array {
  // Only a replayed envelope (`"sy1.…"`) can need the thinking rewrite; otherwise the client's
  // body goes up as it is, with the model spliced in: into its bytes where they are exactly the
  // text's, so nothing is encoded again.
  if (!source.mayHoldString(ENVELOPE_PREFIX)) {
    const spliced = source.spliceMember('model', JSON.stringify(target.upstreamModel));
    if (spliced !== undefined) return spliced;
  }
  return JSON.stringify({ ...withoutForeignThinking(source.object, 'anthropic', warn), model: target.upstreamModel });
}

type Block = { type?: unknown; signature?: unknown };

/**
 * A Claude-style client keeps thinking it got from other upstream kinds (`sy1.<origin>.…`, see
 * signature.ts: gpt-oss reasoning, a Gemini thoughtSignature carrier) and replays it after a model
 * switch; `origin` would reject it with "Invalid signature in thinking block" (pitfall 8). Such
 * blocks are removed and an envelope of `origin` itself is unwrapped. With nothing to change the
 * body is returned as it is (the same object).
 */
export function withoutForeignThinking(body: Record<string, unknown>, origin: UpstreamKind, warn?: Warn): Record<string, unknown> {
  if (!Array.isArray(body.messages)) return body;
  let changed = false;
  let dropped = 0;
  const messages = body.messages.flatMap((message: { content?: unknown }) => {
    if (!Array.isArray(message?.content)) return [message];
    let touched = false;
    const content = (message.content as Block[]).flatMap((block) => {
      const sig = block?.type === 'thinking' && typeof block.signature === 'string' ? readSignature(block.signature, 'anthropic') : undefined;
      if (!sig || sig.value === block.signature) return [block];
      touched = true;
      if (sig.origin === origin) return [{ ...block, signature: sig.value }];
      dropped++;
      return [];
    });
    if (!touched) return [message];
    changed = true;
    return content.length ? [{ ...message, content }] : [];
  });
  if (!changed) return body;
  if (dropped) warn?.(`${dropped} thinking block(s) signed by another provider were dropped (${origin} would reject their signatures)`);
  return { ...body, messages };
}
