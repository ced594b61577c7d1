import type { CatalogModel, RouteTarget } from '../catalog.ts';
import type { RequestContext } from '../context.ts';
import type { SourceFamily } from '../ir.ts';
import type { Passthrough, Upstream } from '../upstreams/types.ts';

/** The fast path this route offers a client of `family`, if its upstream takes that family's bodies verbatim. */
export function selectPassthrough(upstream: Upstream, target: RouteTarget, family: SourceFamily): Passthrough | undefined {
  const pass = upstream.passthrough;
  return pass?.family === family && (pass.accepts?.(target) ?? true) ? pass : undefined;
}

/** Whether the model's first route translates a `family` body (a route reads its object whole). */
export function translatesFirst(ctx: RequestContext, model: CatalogModel | undefined, family: SourceFamily): boolean {
  const target = model?.routes[0];
  const upstream = target && ctx.services.upstreams.get(target.provider);
  return upstream !== undefined && selectPassthrough(upstream, target!, family) === undefined;
}
