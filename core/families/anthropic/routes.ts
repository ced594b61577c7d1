import type { IRequestStrict, RouterType } from 'itty-router';
import type { Guard } from '../../app.ts';
import { runChat } from '../../chat/run-chat.ts';
import { runCountTokens, TOKEN_COUNT_HEADER } from '../../chat/run-count-tokens.ts';
import { readsObjectFirst } from '../../chat/select-passthrough.ts';
import type { RequestContext } from '../../context.ts';
import { GatewayError, toGatewayError } from '../../errors.ts';
import { type JsonBody, KEEP_OBJECT_BYTES } from '../../http/json-body.ts';
import { readLeadingString } from '../../http/json-scan.ts';
import { parseJsonBody, readBody } from '../../http/read-body.ts';
import type { Reply } from '../../http/reply.ts';
import { jsonReply, sseReply } from '../../http/respond.ts';
import { encodeSseBatch } from '../../http/sse-write.ts';
import { writeWarnings } from '../../http/warnings.ts';
import { ENVELOPE_PREFIX } from '../../signature.ts';
import { parseWith } from '../../validate.ts';
import { visibleModels } from '../../visible-models.ts';
import { readAnthropicRequest } from './read-request.ts';
import { CountTokensHead, CountTokensRequest, MessagesRequest, readMessagesHead } from './schema.ts';
import { writeAnthropicModel, writeAnthropicModelList } from './write-model-list.ts';
import { writeAnthropicResponse } from './write-response.ts';
import { createAnthropicStreamWriter, writeAnthropicErrorFrame } from './write-stream.ts';

type Router = RouterType<IRequestStrict, [RequestContext]>;

const VERSIONS = new Set(['2023-06-01', '2026-10-21']);

/**
 * The Claude-style front door: `POST {base}/v1/messages` (JSON or SSE), `POST
 * {base}/v1/messages/count_tokens`, and the Anthropic-shaped model list. Routing matches the path
 * only, so the `?beta=true` older SDKs add changes nothing.
 */
export function registerAnthropicRoutes(router: Router, base: string, guard: Guard): void {
  router.post(`${base}/v1/messages`, guard, async (request, ctx) => {
    const headers = readHeaders(request);
    const limit = ctx.services.config.limits.maxBodyBytes;
    const body = readMessagesBody(ctx, await readBody(request, limit), limit);
    // The head's fields are taken apart: the head may be the parsed object itself, which only
    // `body` may keep from here (a passthrough lets a large one go: see JsonBody).
    const { model: name, stream: streamed, max_tokens: maxTokens } = readMessagesHead(body.head);
    const model = ctx.services.catalog.resolve(name);
    const stream = streamed === true;
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    const outcome = await runChat({
      ctx,
      model,
      family: 'anthropic',
      request: () => readAnthropicRequest(parseWith(MessagesRequest, body.object), { stream, betas: headers.betas, warn }),
      warnings,
      admission: { bodyBytes: body.bytes.byteLength, maxOutputTokens: maxTokens },
      passthrough: { source: body, headers: request.headers, action: 'messages', stream, warn },
    });
    if (outcome.kind === 'reply') return withWarnings(outcome.reply, warnings);
    if (outcome.kind === 'result') {
      const message = writeAnthropicResponse(outcome.result, { model: name, warn });
      return jsonReply(ctx, message, 200, writeWarnings(warnings));
    }
    const events = outcome.events.pipe(createAnthropicStreamWriter({ model: name, id: `msg_${ctx.id}` }));
    const frames = events.toReader((err) => {
      const error = toGatewayError(err);
      if (error.kind === 'internal') ctx.services.logError(ctx.id, err);
      return [writeAnthropicErrorFrame(error)];
    }, encodeSseBatch);
    return sseReply(ctx, frames, writeWarnings(warnings));
  });

  router.post(`${base}/v1/messages/count_tokens`, guard, async (request, ctx) => {
    const headers = readHeaders(request);
    const limit = ctx.services.config.limits.maxBodyBytes;
    const body = parseJsonBody(await readBody(request, limit), limit);
    const head = parseWith(CountTokensHead, body.head);
    const model = ctx.services.catalog.resolve(head.model);
    const warnings: string[] = [];
    const outcome = await runCountTokens({
      ctx,
      model,
      family: 'anthropic',
      request: () => readAnthropicRequest(parseWith(CountTokensRequest, body.object), { stream: false, betas: headers.betas, warn: (m) => warnings.push(m) }),
      passthrough: { source: body, headers: request.headers, action: 'count_tokens', stream: false },
    });
    if (outcome.kind === 'reply') return withWarnings(outcome.reply, warnings);
    const out = writeWarnings(warnings);
    out[TOKEN_COUNT_HEADER] = outcome.source;
    return jsonReply(ctx, { input_tokens: outcome.inputTokens }, 200, out);
  });

  router.get(`${base}/v1/models`, guard, (request, ctx) => {
    readHeaders(request);
    return jsonReply(ctx, writeAnthropicModelList(visibleModels(ctx), readPageQuery(ctx.query)));
  });

  router.get(`${base}/v1/models/:id+`, guard, (request, ctx) => {
    readHeaders(request);
    const id = decodeURIComponent(request.params.id!);
    // Aliases and the prefixed form resolve too, as they do for messages.
    const found = ctx.services.catalog.find(id);
    const model = found && visibleModels(ctx).includes(found) ? found : undefined;
    if (!model) throw new GatewayError('not_found', `The model "${id}" does not exist`, { param: 'model' });
    ctx.model = model.id;
    return jsonReply(ctx, writeAnthropicModel(model));
  });
}

/**
 * A Messages body, parsed or scanned (see parseJsonBody): a large one is parsed at once when the
 * model it leads with has a first route that reads it as an object (one that translates, or
 * Bedrock's passthrough). Its scan notes replayed signature envelopes (see writeAnthropicPassthrough).
 */
function readMessagesBody(ctx: RequestContext, bytes: Uint8Array, limit: number): JsonBody {
  const lead = bytes.byteLength > KEEP_OBJECT_BYTES ? readLeadingString(bytes, 'model') : undefined;
  const parse = lead !== undefined && readsObjectFirst(ctx, ctx.services.catalog.find(lead), 'anthropic');
  return parseJsonBody(bytes, limit, { marker: ENVELOPE_PREFIX, parse });
}

/** Checks anthropic-version (both versions the SDKs send, or none) and splits anthropic-beta. */
function readHeaders(request: IRequestStrict): { betas: string[] } {
  const version = request.headers.get('anthropic-version');
  if (version !== null && !VERSIONS.has(version.trim())) {
    throw new GatewayError('invalid_request', `anthropic-version: "${version}" is not supported (use 2023-06-01 or 2026-10-21)`, { param: 'anthropic-version' });
  }
  const beta = request.headers.get('anthropic-beta');
  const betas = beta ? beta.split(',').map((b) => b.trim()).filter(Boolean) : [];
  return { betas };
}

function readPageQuery(params: URLSearchParams): { limit?: number; afterId?: string; beforeId?: string } {
  const query: { limit?: number; afterId?: string; beforeId?: string } = {};
  const limit = params.get('limit');
  if (limit !== null) {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 1000) throw new GatewayError('invalid_request', 'limit: must be an integer from 1 to 1000', { param: 'limit' });
    query.limit = n;
  }
  const after = params.get('after_id');
  const before = params.get('before_id');
  if (after) query.afterId = after;
  if (before) query.beforeId = before;
  return query;
}

function withWarnings(reply: Reply, warnings: readonly string[]): Reply {
  writeWarnings(warnings, reply.headers);
  return reply;
}
