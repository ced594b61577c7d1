import type { IRequestStrict, RouteEntry } from 'itty-router';
import type { RequestContext } from './context.ts';
import { isPromise, type MaybePromise } from './maybe-promise.ts';

/**
 * Runs a request through itty's route table (`router.routes`) as itty's own `fetch` does: the
 * first route whose method and path match runs its handlers in turn until one returns
 * something; a route whose handlers all return nothing lets the next matching route try.
 * itty's `fetch` also parses the URL again and builds a query object for every request, and
 * awaits every handler, a guard that answered synchronously too; here the path comes from
 * the context, read once, and only a handler's real promise is waited for.
 *
 * A route's promise is returned as it is, not chained to the next route: the caller awaits it
 * anyway, and should it resolve to nothing, goes on with `dispatch(routes, request, ctx,
 * ctx.nextRoute)`, as the gateway's handler does. A `then` here cost every request a promise
 * and a microtask, for a fall-through that only a route answering nothing needs.
 */
export function dispatch(routes: readonly RouteEntry[], request: IRequestStrict, ctx: RequestContext, first = 0): MaybePromise<unknown> {
  const path = ctx.path;
  // HEAD is GET without the body (RFC 9110 9.3.2): uptime monitors send it; the gateway drops the body.
  const wanted = request.method === 'HEAD' ? 'GET' : request.method;
  for (let i = first; i < routes.length; i++) {
    const [method, pattern, handlers] = routes[i]!;
    if (method !== wanted && method !== 'ALL') continue;
    const match = path.match(pattern);
    if (!match) continue;
    request.params = (match.groups ?? {}) as IRequestStrict['params'];
    const answer = runHandlers(handlers, 0, request, ctx);
    if (isPromise(answer)) {
      ctx.nextRoute = i + 1;
      return answer;
    }
    if (answer != null) return answer;
  }
  return undefined;
}

/**
 * The route's handlers from `first` on; what the first one to answer returns (undefined: none did).
 * The wait on an earlier handler's promise is a function of its own: a closure here, even one made
 * only on that path, gave every call a scope object and every turn of the loop another (JavaScriptCore
 * and V8 make them as a function starts, for all the variables any inner function uses).
 */
function runHandlers(handlers: RouteEntry[2], first: number, request: IRequestStrict, ctx: RequestContext): MaybePromise<unknown> {
  for (let i = first; i < handlers.length; i++) {
    const answer: unknown = handlers[i]!(request, ctx);
    // The route's last handler: its promise is the route's answer as it is (dispatch looks at it).
    if (isPromise(answer)) return i === handlers.length - 1 ? answer : runHandlersAfter(answer, handlers, i + 1, request, ctx);
    if (answer != null) return answer;
  }
  return undefined;
}

function runHandlersAfter(answer: Promise<unknown>, handlers: RouteEntry[2], next: number, request: IRequestStrict, ctx: RequestContext): Promise<unknown> {
  return answer.then((value) => value ?? runHandlers(handlers, next, request, ctx));
}
