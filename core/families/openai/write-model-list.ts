import type { CatalogModel } from '../../catalog.ts';

/** The one-api model object: OpenAI's fields plus `permission`, `root` and `parent`. */
export interface OpenAIModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  permission: [];
  root: string;
  parent: null;
}

export function writeOpenAIModel(model: CatalogModel, owner: string): OpenAIModel {
  return { id: model.id, object: 'model', created: model.created, owned_by: owner, permission: [], root: model.id, parent: null };
}

export function writeOpenAIModelList(models: readonly CatalogModel[], owner: string): { object: 'list'; data: OpenAIModel[] } {
  return { object: 'list', data: models.map((m) => writeOpenAIModel(m, owner)) };
}
