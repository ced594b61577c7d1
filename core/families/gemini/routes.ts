import type { IRequestStrict, RouterType } from 'itty-router';
import type { Guard } from '../../app.ts';
import type { RequestContext } from '../../context.ts';
import { runChat } from '../../chat/run-chat.ts';
import { readsObjectFirst } from '../../chat/select-passthrough.ts';
import { GatewayError, toGatewayError } from '../../errors.ts';
import { KEEP_OBJECT_BYTES } from '../../http/json-body.ts';
import { parseJsonBody, readBody } from '../../http/read-body.ts';
import { Reply } from '../../http/reply.ts';
import { jsonReply, sseReply, withRequestId } from '../../http/respond.ts';
import { encodeSseBatch } from '../../http/sse-write.ts';
import { parseWith } from '../../validate.ts';
import { visibleModels } from '../../visible-models.ts';
import { countGeminiTokens } from './count-tokens.ts';
import { readGeminiRequest } from './read-request.ts';
import { GeminiGenerateContentRequest, readGenerateContentHead } from './schema.ts';
import { createJsonArrayEncoder } from './write-json-array.ts';
import { writeGeminiModel, writeGeminiModelList } from './write-model-list.ts';
import { writeGeminiResponse } from './write-response.ts';
import { createGeminiStreamWriter, writeGeminiErrorFrame } from './write-stream.ts';
import { writeWarnings } from '../../http/warnings.ts';

type Router = RouterType<IRequestStrict, [RequestContext]>;
type Action = 'generateContent' | 'streamGenerateContent' | 'countTokens';

const ACTIONS = new Set<string>(['generateContent', 'streamGenerateContent', 'countTokens']);

/**
 * The Gemini-style family: `POST {base}/v1beta/models/{model}:{action}`, `GET {base}/v1beta/models`
 * and `GET {base}/v1beta/models/{model}` (`/v1` is accepted too). itty would read the `:` of
 * `{model}:{action}` as a second parameter, so one greedy `:target+` takes the whole rest and is
 * split at its last `:` (model ids may contain dots, and the SDK sends `a/b` unencoded).
 */
export function registerGeminiRoutes(router: Router, base: string, guard: Guard): void {
  for (const version of ['v1beta', 'v1']) {
    router.get(`${base}/${version}/models`, guard, listModels);
    router.get(`${base}/${version}/models/:target+`, guard, getModel);
    router.post(`${base}/${version}/models/:target+`, guard, generate);
  }
}

async function generate(req: IRequestStrict, ctx: RequestContext): Promise<Reply> {
  const target = readTarget(req);
  const cut = target.lastIndexOf(':');
  const name = target.slice(0, Math.max(cut, 0));
  const action = target.slice(cut + 1);
  if (cut < 0 || !ACTIONS.has(action)) {
    throw new GatewayError('not_found', `Method "${cut < 0 ? target : action}" is not found: use :generateContent, :streamGenerateContent or :countTokens`);
  }
  const model = ctx.services.catalog.resolve(name);
  const limit = ctx.services.config.limits.maxBodyBytes;
  const bytes = await readBody(req, limit);
  if (action === 'countTokens') return countGeminiTokens(ctx, model, parseJsonBody(bytes, limit), req.headers);
  // A large body bound for a route that reads it as an object (a translation) is parsed at once
  // (see parseJsonBody); a small one is parsed anyway, without the question asked.
  const body = parseJsonBody(bytes, limit, { parse: bytes.byteLength > KEEP_OBJECT_BYTES && readsObjectFirst(ctx, model, 'gemini') });

  // Only `body` may keep the parsed object from here (a passthrough lets a large one go: see JsonBody).
  const maxOutputTokens = readGenerateContentHead(body.head).generationConfig?.maxOutputTokens;
  const stream = action === 'streamGenerateContent';
  const sse = stream && ctx.queryValue('alt') === 'sse';
  const warnings: string[] = [];
  const outcome = await runChat({
    ctx,
    model,
    family: 'gemini',
    warnings,
    admission: { bodyBytes: body.bytes.byteLength, maxOutputTokens },
    request: () => readGeminiRequest(parseWith(GeminiGenerateContentRequest, body.object), { model: model.id, stream, warn: (m) => warnings.push(m) }),
    // `stream` tells the Gemini upstream to ask for SSE; without it a streamed call keeps the JSON-array form.
    passthrough: { source: body, headers: req.headers, action: action as Action, stream: sse },
  });
  if (outcome.kind === 'reply') return outcome.reply;
  const headers = writeWarnings(warnings);
  if (outcome.kind === 'result') return jsonReply(ctx, writeGeminiResponse(outcome.result, { model: name }), 200, headers);

  const events = outcome.events.pipe(createGeminiStreamWriter({ model: name }));
  const toFrames = (err: unknown) => {
    const error = toGatewayError(err);
    if (error.kind === 'internal') ctx.services.logError(ctx.id, err);
    return [writeGeminiErrorFrame(error)];
  };
  if (sse) return sseReply(ctx, events.toReader(toFrames, encodeSseBatch), headers);
  const h = withRequestId(ctx, headers);
  h['content-type'] = 'application/json; charset=UTF-8';
  h['cache-control'] = 'no-cache';
  h['x-accel-buffering'] = 'no';
  return new Reply(200, h, events.toReader(toFrames, createJsonArrayEncoder()));
}

const DEFAULT_PAGE = 50;
const MAX_PAGE = 1000;

/** Pages like Gemini: `pageSize` (default 50, at most 1000, as Gemini documents) and an opaque `pageToken`. */
function listModels(_req: IRequestStrict, ctx: RequestContext): Reply {
  const models = visibleModels(ctx);
  const query = ctx.query;
  const size = readCount(query.get('pageSize'), 'pageSize') || DEFAULT_PAGE;
  const start = readCount(query.get('pageToken'), 'pageToken');
  const end = start + Math.min(size, MAX_PAGE);
  const next = end < models.length ? String(end) : undefined;
  return jsonReply(ctx, writeGeminiModelList(models.slice(start, end), naming(ctx), next));
}

function getModel(req: IRequestStrict, ctx: RequestContext): Reply {
  const name = readTarget(req);
  const found = ctx.services.catalog.find(name);
  const model = found && visibleModels(ctx).includes(found) ? found : undefined;
  if (!model) throw new GatewayError('not_found', `models/${name} is not found for API version v1beta. Call ListModels to see the available models.`, { param: 'model' });
  ctx.model = model.id;
  return jsonReply(ctx, writeGeminiModel(model, naming(ctx)));
}

function naming(ctx: RequestContext) {
  return { prefix: ctx.services.config.prefix, owner: ctx.services.config.owner };
}

function readTarget(req: IRequestStrict): string {
  const target = req.params.target ?? '';
  // decodeURIComponent costs ~0.25 µs on Bun even when there is nothing to decode.
  if (!target.includes('%')) return target;
  try {
    return decodeURIComponent(target);
  } catch {
    throw new GatewayError('not_found', 'The model name in the path is not valid');
  }
}

function readCount(value: string | null, param: string): number {
  if (value === null || value === '') return 0;
  if (!/^\d{1,9}$/.test(value)) throw new GatewayError('invalid_request', `${param}: must be a non-negative integer`, { param });
  return Number(value);
}
