import { seededInts } from './seeded.ts';

/**
 * Seeded mutations of JSON request bodies, for holding a hand-made check to the schema it stands
 * in for (test/unit/valibot-check.test.ts, and the same on every runtime in test/runtime/).
 */

/** Values a mutation puts in: every JSON type, edge numbers, strings valibot transforms, known literals. */
const VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 2048, '', 'text', 'auto', 'AUTO', 'user', 'model', 'ephemeral', 'image', 'tool_use', 'tool_result', 'thinking', 'enabled', 'object', 'custom', [], [1], {}, { type: 'text', text: 'x' }, { type: 'bogus' }, { parts: [] }];
const KEYS = ['type', 'text', 'role', 'content', 'parts', 'name', 'extra', 'constructor', 'prototype', '__proto__', 'cache_control', 'mode', 'input'];

type Json = Record<string, unknown> | unknown[];

/** Every object and array in a value, with the value itself first. */
function containers(value: unknown, out: Json[] = []): Json[] {
  if (value && typeof value === 'object') {
    out.push(value as Json);
    for (const child of Object.values(value)) containers(child, out);
  }
  return out;
}

/** A copy of `body` with one to three random changes somewhere inside it. */
export function mutate(body: unknown, next: (n: number) => number): unknown {
  const copy = JSON.parse(JSON.stringify(body)) as unknown;
  for (let step = 0, steps = 1 + next(3); step < steps; step++) {
    const all = containers(copy);
    const target = all[next(all.length)]!;
    const keys = Object.keys(target);
    const key = Array.isArray(target) ? next(target.length + 1) : keys.length && next(4) ? keys[next(keys.length)]! : KEYS[next(KEYS.length)]!;
    const pick = VALUES[next(VALUES.length)];
    const change = next(6);
    const slot = target as Record<string | number, unknown>;
    // Own keys only, read and written as data: Node's and Bun's `x.__proto__` is the prototype,
    // Deno has no such accessor, and the mutations must be the same on every runtime.
    const current = Object.hasOwn(slot, key) ? slot[key] : undefined;
    const put = (value: unknown) => Object.defineProperty(slot, key, { value, enumerable: true, writable: true, configurable: true });
    if (change === 0 && !Array.isArray(target)) delete slot[key];
    else if (change === 1 && typeof current === 'string') put(next(2) ? current.toLowerCase() : current.toUpperCase());
    else if (change === 2 && current && typeof current === 'object' && !Array.isArray(current)) put([current]);
    // Also an own `__proto__` key, as JSON.parse makes one.
    else put(structuredClone(pick));
  }
  return copy;
}

/** `count` mutated copies of `bodies` (taken in turn), the same for the same seed. */
export function mutateBodies(bodies: readonly unknown[], count: number, seed: number): unknown[] {
  const next = seededInts(seed);
  return Array.from({ length: count }, (_, i) => mutate(bodies[i % bodies.length], next));
}
