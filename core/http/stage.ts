/**
 * A stream step as plain synchronous calls: `push` takes one item and emits any number of
 * outputs, `end` flushes. Composed stages run inside one TransformStream (or one pull), so an
 * event crosses no promise hop between steps. `stopped` turns true when the stage wants no more
 * input (an upstream error it reported): after that `push` is not called again, the source is
 * cancelled, and `end` still comes once (a stopped stage ignores it; later stages flush). `abort` hears a failure anywhere in the pipeline, or the
 * client's cancel.
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
  let stream: TransformStream<I, O> | undefined;
  const build = () => (stream ??= transformOf(stage));
  return {
    [STAGE]: stage,
    get readable() {
      return build().readable;
    },
    get writable() {
      return build().writable;
    },
  } as StagedTransform<I, O>;
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
  // One forwarding function for the pipe's life, not a new closure per item: pushes are
  // synchronous and never nested on the same pipe, so `out` is the caller's emit throughout.
  let out: (item: C) => void = () => {};
  const forward = (mid: B) => {
    if (!b.stopped) b.push(mid, out);
  };
  return {
    push(item, emit) {
      out = emit;
      a.push(item, forward);
    },
    end(emit) {
      out = emit;
      a.end(forward);
      b.end(emit);
    },
    get stopped() {
      return a.stopped === true || b.stopped === true;
    },
    abort(reason) {
      a.abort?.(reason);
      b.abort?.(reason);
    },
  };
}

/** Passes items through unchanged. */
export function identityStage<T>(): Stage<T, T> {
  return { push: (item, emit) => emit(item), end: () => {} };
}
