/** Above this size a body lets its parsed object go when a passthrough takes it (see release). */
export const KEEP_OBJECT_BYTES = 64 * 1024;

/**
 * A client's JSON body: the bytes as received, the text decoded from them and the object parsed
 * from that text. A coding agent's 100K-token request parses into megabytes of objects; kept for
 * the whole upstream call, they outlived young-generation collections and were copied and promoted
 * (on Node 20, a quarter of the CPU of such a passthrough), which sends the bytes and needs none
 * of them. So a passthrough releases the body, which then keeps only its top-level scalars, and
 * whatever needs the whole object later (a fallback route that translates, a writer that must
 * re-serialise it) parses the text again, once.
 */
export class JsonBody {
  #object: Record<string, unknown> | undefined;
  #head: Record<string, unknown>;

  constructor(
    readonly bytes: Uint8Array,
    readonly text: string,
    object: Record<string, unknown>,
  ) {
    this.#object = object;
    this.#head = object;
  }

  /** The parsed object (parsed again if it was let go). */
  get object(): Record<string, unknown> {
    this.#object ??= JSON.parse(this.text) as Record<string, unknown>;
    return this.#object;
  }

  /** The top-level scalar members (`model`, `stream`, …) without a parse: the whole object while it is kept. */
  get head(): Record<string, unknown> {
    return this.#head;
  }

  /** Lets a large body's object go; its head stays. */
  release(): void {
    if (this.bytes.byteLength <= KEEP_OBJECT_BYTES || this.#object === undefined) return;
    const head: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this.#object)) {
      // `__proto__` would set the copy's prototype rather than a member.
      if (key !== '__proto__' && (value === null || typeof value !== 'object')) head[key] = value;
    }
    this.#head = head;
    this.#object = undefined;
  }
}
