/**
 * A value that is usually at hand (a cached key, an admission with no limits to check) and only
 * sometimes has to be waited for. On the request path every promise is a microtask and an
 * allocation, and every `return promise` from an async function two more; answering the common
 * case synchronously keeps them off the path (bench/README.md, eleventh round).
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}
