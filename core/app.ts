import { Router, type IRequestStrict, type RouterType } from 'itty-router';
import { registerAdminRoutes } from './admin/routes.ts';
import type { GatewayServices, RequestContext } from './context.ts';
import { GatewayError } from './errors.ts';
import { registerAnthropicRoutes } from './families/anthropic/routes.ts';
import type { Family } from './families/family.ts';
import { registerGeminiRoutes } from './families/gemini/routes.ts';
import { registerOpenAIRoutes } from './families/openai/routes.ts';
import { answerPreflight } from './http/cors.ts';
import { jsonReply } from './http/respond.ts';
import { authenticate, type KeyRecord } from './keys.ts';
import { isPromise, type MaybePromise } from './maybe-promise.ts';

export type GatewayRouter = RouterType<IRequestStrict, [RequestContext]>;
export type Guard = (req: IRequestStrict, ctx: RequestContext) => MaybePromise<undefined>;

/** Builds the route table once; handlers receive the per-request context as itty's extra argument. */
export function buildRouter(services: GatewayServices): GatewayRouter {
  const { segments, basePath } = services.config;
  const router: GatewayRouter = Router<IRequestStrict, [RequestContext]>();

  // Not async: a known key is answered from memory, and then the guard costs no promise.
  const guard: Guard = (req, ctx) => {
    const key = authenticate(services.keys, req, ctx);
    if (isPromise(key)) return keepKeyOnceVerified(key, ctx);
    ctx.key = key;
    return undefined;
  };

  router.get(`${basePath}/healthz`, (_req, ctx) => jsonReply(ctx, { status: 'ok' }));
  registerOpenAIRoutes(router, `${basePath}/api/${segments.list}/v1`, guard);
  registerAnthropicRoutes(router, `${basePath}/api/${segments.messages}`, guard);
  registerGeminiRoutes(router, `${basePath}/api/${segments.generate}`, guard);

  if (services.admin) registerAdminRoutes(router, `${basePath}/admin/v1`, services.admin);

  // Any path registered above answers other methods with 405 instead of 404.
  const known = new Set(router.routes.map((route) => route[3]!));
  // Before those 405s: a preflight carries no key and may name any path.
  const { cors } = services;
  if (cors) router.options('*', (req, ctx) => (cors.covers(ctx.path) ? answerPreflight(cors, req, ctx) : undefined));
  for (const path of known) {
    router.all(path, (req) => {
      throw new GatewayError('method_not_allowed', `Method ${req.method} is not allowed on ${new URL(req.url).pathname}`);
    });
  }
  router.all('*', (_req, ctx) => {
    throw new GatewayError('not_found', `No route for ${ctx.path}`);
  });
  return router;
}

/** Apart from the guard: its closure, even unmade, gave every request a scope object (see runHandlers in dispatch.ts). */
function keepKeyOnceVerified(key: Promise<KeyRecord>, ctx: RequestContext): Promise<undefined> {
  return key.then((record) => {
    ctx.key = record;
    return undefined;
  });
}

/**
 * Which family's envelope an answer on a path uses, even for paths no route matched. The
 * prefixes are built once per configuration, not per request.
 */
export function createFamilyOfPath({ segments, basePath }: Pick<GatewayServices['config'], 'segments' | 'basePath'>): (path: string) => Family {
  const messages = `${basePath}/api/${segments.messages}/`;
  const generate = `${basePath}/api/${segments.generate}/`;
  const list = `${basePath}/api/${segments.list}/`;
  return (path) => {
    if (path.startsWith(messages)) return 'anthropic';
    if (path.startsWith(generate)) return 'gemini';
    if (path.startsWith(list)) return 'openai';
    if (path.includes('/v1beta/')) return 'gemini';
    if (path.includes('/v1/messages')) return 'anthropic';
    return 'openai';
  };
}
