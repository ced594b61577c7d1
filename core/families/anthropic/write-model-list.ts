/** @see https://platform.claude.com/docs/en/api/models/list */
import type { CatalogModel } from '../../catalog.ts';

export interface AnthropicModelInfo {
  type: 'model';
  id: string;
  display_name: string;
  created_at: string;
}

export interface AnthropicModelPage {
  data: AnthropicModelInfo[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

export interface AnthropicPageQuery {
  limit?: number;
  afterId?: string;
  beforeId?: string;
}

export function writeAnthropicModel(model: CatalogModel): AnthropicModelInfo {
  return { type: 'model', id: model.id, display_name: model.id, created_at: new Date(model.created * 1000).toISOString().replace('.000Z', 'Z') };
}

/**
 * One page in the Anthropic shape. Without a `limit` every model fits on the page, so clients
 * that read only the first page (model pickers) still see them all; with one, `after_id` /
 * `before_id` page the way the SDK's auto-pagination expects.
 */
export function writeAnthropicModelList(models: readonly CatalogModel[], query: AnthropicPageQuery = {}): AnthropicModelPage {
  let start = 0;
  let end = models.length;
  if (query.afterId !== undefined) start = models.findIndex((m) => m.id === query.afterId) + 1 || models.length;
  else if (query.beforeId !== undefined) end = Math.max(0, models.findIndex((m) => m.id === query.beforeId));
  if (query.limit !== undefined) {
    if (query.beforeId !== undefined && query.afterId === undefined) start = Math.max(0, end - query.limit);
    else end = Math.min(end, start + query.limit);
  }
  const data = models.slice(start, end).map(writeAnthropicModel);
  const hasMore = query.beforeId !== undefined && query.afterId === undefined ? start > 0 : end < models.length;
  return { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
