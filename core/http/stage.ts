/**
 * A stream step as plain synchronous calls: `push` takes one item and emits any number of
 * outputs, `end` flushes. Composed stages run inside one TransformStream (or one pull), so an
 * event crosses no promise hop between steps. `stopped` turns true when the stage wants no more
 * input (an upstream error it reported): after that `push` is not called again, the source is
 * cancelled, and `end` still comes once (a stopped stage ignores it; later stages flush). `abort` hears a failure anywhere in the pipeline, or the
 * client's cancel.
 *
 * A stage made per stream keeps `stopped` (and anything else it exposes) as a data property, a
 * method or a class getter, never as a getter in an object literal: V8 makes such an object a
 * dictionary-mode object (reads are hash lookups), and with a handful of them each stream's objects
 * survived minor collections until a full one. Measured on the Claude → OpenAI-compatible stream
 * under load: ~14 KiB promoted per request, and ~40% more CPU per stream (bench/README.md).
 */
export interface Stage<I, O> {
  push(item: I, emit: (out: O) => void): void;
  end(emit: (out: O) => void): void;
  readonly stopped?: boolean;
  abort?(reason: unknown): void;
}

const STAGE = Symbol('stage');

type StagedTransform<I, O> = TransformStream<I, O> & { [STAGE]: Stage<I, O> };

/**
 * A TransformStream running `stage`; the stage stays reachable (see `stageOf`) so callers can fuse
 * it. The TransformStream itself is built only if someone reads `readable` or `writable`: a fused
 * caller never does, and on Node each web stream costs a transferable object and two queues.
 */
export function stageStream<I, O>(stage: Stage<I, O>): TransformStream<I, O> {
  return new LazyTransform(stage) as unknown as StagedTransform<I, O>;
}

class LazyTransform<I, O> {
  readonly [STAGE]: Stage<I, O>;
  #stream: TransformStream<I, O> | undefined;

  constructor(stage: Stage<I, O>) {
    this[STAGE] = stage;
  }

  get readable(): ReadableStream<O> {
    return (this.#stream ??= transformOf(this[STAGE])).readable;
  }

  get writable(): WritableStream<I> {
    return (this.#stream ??= transformOf(this[STAGE])).writable;
  }
}

function transformOf<I, O>(stage: Stage<I, O>): TransformStream<I, O> {
  // `cancel` is in the Streams spec and in Node 20, Bun and Deno, but not yet in TypeScript's lib.
  const transformer: Transformer<I, O> & { cancel(reason: unknown): void } = {
    transform(item, controller) {
      const emit = (out: O) => controller.enqueue(out);
      stage.push(item, emit);
      if (stage.stopped) {
        stage.end(emit);
        // Stops reading: cancels the rest of the source.
        controller.terminate();
      }
    },
    flush(controller) {
      stage.end((out) => controller.enqueue(out));
    },
    cancel(reason) {
      stage.abort?.(reason);
    },
  };
  return new TransformStream<I, O>(transformer);
}

/** The stage behind a `stageStream`, or undefined for any other TransformStream. */
export function stageOf<I, O>(stream: TransformStream<I, O>): Stage<I, O> | undefined {
  return (stream as Partial<StagedTransform<I, O>>)[STAGE];
}

/** `a` then `b` as one stage. */
export function pipeStages<A, B, C>(a: Stage<A, B>, b: Stage<B, C>): Stage<A, C> {
  return new PipedStage(a, b);
}

const ignore = () => {};

class PipedStage<A, B, C> implements Stage<A, C> {
  // One forwarding function for the pipe's life, not a new closure per item: pushes are
  // synchronous and never nested on the same pipe, so `out` is the caller's emit throughout.
  #out: (item: C) => void = ignore;
  readonly #forward = (mid: B) => {
    if (!this.b.stopped) this.b.push(mid, this.#out);
  };

  constructor(
    private readonly a: Stage<A, B>,
    private readonly b: Stage<B, C>,
  ) {}

  push(item: A, emit: (out: C) => void): void {
    this.#out = emit;
    this.a.push(item, this.#forward);
    // The caller's emit holds its batch of output: not kept past the call.
    this.#out = ignore;
  }

  end(emit: (out: C) => void): void {
    this.#out = emit;
    this.a.end(this.#forward);
    this.b.end(emit);
    this.#out = ignore;
  }

  get stopped(): boolean {
    return this.a.stopped === true || this.b.stopped === true;
  }

  abort(reason: unknown): void {
    this.a.abort?.(reason);
    this.b.abort?.(reason);
  }
}

/** Passes items through unchanged. */
export function identityStage<T>(): Stage<T, T> {
  return { push: (item, emit) => emit(item), end: () => {} };
}
