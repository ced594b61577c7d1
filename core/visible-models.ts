import type { CatalogModel } from './catalog.ts';
import type { RequestContext } from './context.ts';

/** The models a request's key may see: a key limited to some models lists only those. */
export function visibleModels(ctx: RequestContext): readonly CatalogModel[] {
  const all = ctx.services.catalog.models;
  const allowed = ctx.key?.models;
  return allowed ? all.filter((m) => allowed.has(m.id)) : all;
}
