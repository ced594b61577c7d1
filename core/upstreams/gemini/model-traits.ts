/** @see https://ai.google.dev/gemini-api/docs/models */

export interface GeminiModelTraits {
  /** 2, 2.5, 3, 3.1…; undefined when the id does not say (custom or tuned models). */
  generation?: number;
  tier: 'pro' | 'flash' | 'flash-lite' | 'other';
}

/** What the model id tells about thinking controls and signature validation. */
export function readModelTraits(model: string): GeminiModelTraits {
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  const version = /gemini-(\d+(?:\.\d+)?)/.exec(id);
  const tier = id.includes('flash-lite') ? 'flash-lite' : id.includes('flash') ? 'flash' : id.includes('pro') ? 'pro' : 'other';
  return version ? { generation: Number(version[1]), tier } : { tier };
}

/** Gemini 3 and later validate thought signatures and take thinkingLevel instead of a budget. */
export function isGemini3(model: string): boolean {
  return (readModelTraits(model).generation ?? 0) >= 3;
}
