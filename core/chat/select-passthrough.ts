import type { RouteTarget } from '../catalog.ts';
import type { SourceFamily } from '../ir.ts';
import type { Passthrough, Upstream } from '../upstreams/types.ts';

/** The fast path this route offers a client of `family`, if its upstream takes that family's bodies verbatim. */
export function selectPassthrough(upstream: Upstream, target: RouteTarget, family: SourceFamily): Passthrough | undefined {
  const pass = upstream.passthrough;
  return pass?.family === family && (pass.accepts?.(target) ?? true) ? pass : undefined;
}
