/** How many models' templates one upstream keeps; past it, the one learned longest ago goes. */
const MAX_MODELS = 64;

/**
 * The last template a stream reader learned for each model of one upstream, for the next stream
 * of that model to start with: learning one is a parse and a scan of a whole chunk, ~4 µs of the
 * ~17 µs Node 20 takes to read the bench's 30-chunk Gemini answer. A template is only a guess
 * that each chunk checks (one that does not match is parsed), so a stale one costs a parse, never
 * a wrong read. The models come from the configuration; the bound is there all the same.
 */
export class TemplateCache<T> {
  readonly #byModel = new Map<string, T>();

  get(model: string): T | undefined {
    return this.#byModel.get(model);
  }

  set(model: string, template: T): void {
    // Deleted first, so the map's order is the order of learning.
    if (!this.#byModel.delete(model) && this.#byModel.size >= MAX_MODELS) this.#byModel.delete(this.#byModel.keys().next().value!);
    this.#byModel.set(model, template);
  }
}
