import type { CatalogModel, RouteTarget } from '../catalog.ts';
import type { RequestContext } from '../context.ts';
import type { SourceFamily } from '../ir.ts';
import type { Passthrough, Upstream } from '../upstreams/types.ts';

/** The fast path this route offers a client of `family`, if its upstream takes that family's bodies verbatim. */
export function selectPassthrough(upstream: Upstream, target: RouteTarget, family: SourceFamily): Passthrough | undefined {
  const pass = upstream.passthrough;
  return pass?.family === family && (pass.accepts?.(target) ?? true) ? pass : undefined;
}

/**
 * Whether the model's first route reads a `family` body as an object: it translates, or its
 * passthrough rebuilds the body (Bedrock). Such a large body is parsed at once, not scanned.
 */
export function readsObjectFirst(ctx: RequestContext, model: CatalogModel | undefined, family: SourceFamily): boolean {
  const target = model?.routes[0];
  const upstream = target && ctx.services.upstreams.get(target.provider);
  if (upstream === undefined) return false;
  const pass = selectPassthrough(upstream, target!, family);
  return pass === undefined || pass.readsObject === true;
}
