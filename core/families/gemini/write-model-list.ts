/** @see https://ai.google.dev/api/models#Model */
import type { CatalogModel } from '../../catalog.ts';

export interface GeminiModel {
  name: string;
  baseModelId: string;
  version: string;
  displayName: string;
  description: string;
  supportedGenerationMethods: string[];
}

export interface GeminiModelNaming {
  /** The configured model prefix ('' for none). */
  prefix: string;
  owner: string;
}

const METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'];

/**
 * Names carry the prefix (`models/acme.gemini-2.5-flash`): generate calls are made with
 * `{prefix}.{id}` and the SDK passes `name` back as it is, so a listed name can be used directly.
 * `baseModelId` is the bare id. Token limits are left out: the catalog does not know them, and a
 * made-up number would mislead clients that size their context by it.
 */
export function writeGeminiModel(model: CatalogModel, naming: GeminiModelNaming): GeminiModel {
  const name = naming.prefix ? `${naming.prefix}.${model.id}` : model.id;
  return {
    name: `models/${name}`,
    baseModelId: model.id,
    version: '001',
    displayName: model.id,
    description: `${model.id}, served by ${naming.owner}`,
    supportedGenerationMethods: METHODS,
  };
}

export function writeGeminiModelList(
  models: readonly CatalogModel[],
  naming: GeminiModelNaming,
  nextPageToken?: string,
): { models: GeminiModel[]; nextPageToken?: string } {
  const list = models.map((m) => writeGeminiModel(m, naming));
  return nextPageToken ? { models: list, nextPageToken } : { models: list };
}
