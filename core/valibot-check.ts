import type * as v from 'valibot';

/**
 * True only where the schema accepts `input` and its output would equal `input` (the same keys
 * and values; valibot's copies put known keys first, the input keeps the client's order).
 */
export type Check = (input: unknown) => boolean;

/**
 * `exact`: the check says true exactly where valibot succeeds. An inexact check may also say
 * false where valibot would succeed (an array where an object is expected, which valibot turns
 * into an object; a key valibot drops; a string a transformation would change): the caller then
 * asks valibot, which answers as it always did.
 */
interface Compiled {
  check: Check;
  exact: boolean;
}

type Node = v.GenericSchema & Record<string, unknown>;
type Action = { kind: string; type: string; requirement?: unknown };

const compiled = new WeakMap<object, Compiled | null>();

/**
 * A check compiled once from a valibot schema, for validating the usual body without valibot's
 * per-node datasets and copies (`parseWith` returns the input itself when it passes). Undefined
 * where the schema holds something this file does not model (defaults, fallbacks, async parts,
 * other schema kinds or actions): valibot then runs as before.
 */
export function compileCheck(schema: v.GenericSchema): Check | undefined {
  return readCompiled(schema as Node)?.check;
}

function readCompiled(schema: Node): Compiled | null {
  let known = compiled.get(schema);
  if (known === undefined) {
    known = compileNode(schema);
    compiled.set(schema, known);
  }
  return known;
}

function compileNode(schema: Node): Compiled | null {
  if (schema.kind !== 'schema' || schema.async || schema.fallback !== undefined) return null;
  // A piped schema is its first schema's copy with `pipe` added: the same `type`, more steps.
  if (schema.pipe) return compilePipe(schema);
  switch (schema.type) {
    case 'string':
      return { check: (x) => typeof x === 'string', exact: true };
    case 'number':
      return { check: (x) => typeof x === 'number' && !Number.isNaN(x), exact: true };
    case 'boolean':
      return { check: (x) => typeof x === 'boolean', exact: true };
    case 'unknown':
    case 'any':
      return { check: () => true, exact: true };
    case 'literal': {
      const literal = schema.literal;
      return { check: (x) => sameValueZero(x, literal), exact: true };
    }
    case 'picklist': {
      const options = schema.options as unknown[];
      return { check: (x) => options.includes(x), exact: true };
    }
    case 'custom': {
      const check = schema.check as Check;
      return { check: (x) => Boolean(check(x)), exact: true };
    }
    case 'optional':
    case 'nullish':
      return compileOptional(schema);
    case 'array':
      return compileArray(schema);
    case 'object':
    case 'loose_object':
    case 'strict_object':
      return compileObject(schema);
    case 'record':
      return compileRecord(schema);
    case 'variant':
      return compileVariant(schema);
    case 'union':
      return compileUnion(schema);
    case 'lazy':
      return compileLazy(schema);
    default:
      return null;
  }
}

function compileOptional(schema: Node): Compiled | null {
  if (schema.default !== undefined) return null;
  const wrapped = readCompiled(schema.wrapped as Node);
  if (!wrapped) return null;
  const inner = wrapped.check;
  const check: Check = schema.type === 'nullish' ? (x) => x === undefined || x === null || inner(x) : (x) => x === undefined || inner(x);
  return { check, exact: wrapped.exact };
}

function compileArray(schema: Node): Compiled | null {
  const item = readCompiled(schema.item as Node);
  if (!item) return null;
  const check = item.check;
  return {
    check: (x) => {
      if (!Array.isArray(x)) return false;
      for (let i = 0; i < x.length; i++) if (!check(x[i])) return false;
      return true;
    },
    exact: item.exact,
  };
}

const OPTIONAL_TYPES = new Set(['optional', 'nullish', 'exact_optional']);

/**
 * valibot copies an object's own keys but `__proto__`, `prototype` and `constructor`, and takes
 * an array for an object: such input is left to it, so what passes here is what it would output.
 */
function compileObject(schema: Node): Compiled | null {
  const entries = schema.entries as Record<string, Node>;
  const index = new Map<string, number>();
  const checks: Check[] = [];
  const required: boolean[] = [];
  let requiredCount = 0;
  for (const [key, entry] of Object.entries(entries)) {
    // valibot asks `key in input`, which finds what Object.prototype has on every input.
    if (key in Object.prototype) return null;
    const compiledEntry = readCompiled(entry);
    if (!compiledEntry) return null;
    index.set(key, checks.length);
    checks.push(compiledEntry.check);
    const isRequired = !OPTIONAL_TYPES.has(entry.type);
    required.push(isRequired);
    if (isRequired) requiredCount++;
  }
  // An object drops unknown keys and a strict one refuses them: only an input without them passes.
  const onlyKnown = schema.type !== 'loose_object';
  return {
    check: (x) => {
      if (!isPlainObject(x)) return false;
      // The input's keys, not the schema's: a body names a few of the many fields a schema knows.
      let requiredSeen = 0;
      for (const key in x) {
        const i = index.get(key);
        if (i === undefined) {
          if (onlyKnown || isDroppedKey(key)) return false;
        } else {
          if (!checks[i]!(x[key])) return false;
          if (required[i]) requiredSeen++;
        }
      }
      return requiredSeen === requiredCount;
    },
    exact: false,
  };
}

function compileRecord(schema: Node): Compiled | null {
  const key = schema.key as Node;
  if (key.type !== 'string' || key.pipe) return null;
  const value = readCompiled(schema.value as Node);
  if (!value) return null;
  const check = value.check;
  const anyValue = (schema.value as Node).type === 'unknown' || (schema.value as Node).type === 'any';
  return {
    check: (x) => {
      if (!isPlainObject(x)) return false;
      for (const k in x) if (isDroppedKey(k) || (!anyValue && !check(x[k]))) return false;
      return true;
    },
    exact: false,
  };
}

/**
 * valibot's variant runs the first option whose discriminator accepts the value, and fails if
 * that option fails (it moves on only from an option whose output is untyped); the check runs
 * that option too and leaves a failure to valibot. The discriminators must be exact, so that the
 * option chosen here is the one valibot chooses.
 */
function compileVariant(schema: Node): Compiled | null {
  const key = schema.key as string;
  const options: { present: Check; absentOk: boolean; check: Check }[] = [];
  for (const option of schema.options as Node[]) {
    if (option.type === 'variant') return null;
    const discriminatorSchema = (option.entries as Record<string, Node> | undefined)?.[key];
    if (!discriminatorSchema) return null;
    const discriminator = readCompiled(discriminatorSchema);
    const whole = readCompiled(option);
    if (!discriminator?.exact || !whole) return null;
    options.push({ present: discriminator.check, absentOk: OPTIONAL_TYPES.has(discriminatorSchema.type), check: whole.check });
  }
  return {
    check: (x) => {
      if (!x || typeof x !== 'object') return false;
      const present = key in x;
      const value = (x as Record<string, unknown>)[key];
      for (const option of options) {
        if (present ? option.present(value) : option.absentOk) return option.check(x);
      }
      return false;
    },
    exact: false,
  };
}

/** valibot's union returns the first option that succeeds: a later one counts only when every earlier one surely failed. */
function compileUnion(schema: Node): Compiled | null {
  const options: Compiled[] = [];
  for (const option of schema.options as Node[]) {
    const one = readCompiled(option);
    if (!one) return null;
    options.push(one);
  }
  return {
    check: (x) => {
      for (const option of options) {
        if (option.check(x)) return true;
        if (!option.exact) return false;
      }
      return false;
    },
    exact: options.every((option) => option.exact),
  };
}

/** A lazy schema's getter picks the schema per input; each one it returns is compiled once. */
function compileLazy(schema: Node): Compiled {
  const getter = schema.getter as (input: unknown) => Node;
  return {
    check: (x) => {
      const picked = readCompiled(getter(x));
      return picked !== null && picked.check(x);
    },
    exact: false,
  };
}

function compilePipe(schema: Node): Compiled | null {
  const [head, ...rest] = schema.pipe as (Node | Action)[];
  if (!head || head.kind !== 'schema' || head === schema) return null;
  const base = readCompiled(head as Node);
  if (!base) return null;
  const steps: Check[] = [base.check];
  let exact = base.exact;
  for (const item of rest) {
    if (item.kind === 'metadata') continue;
    // A schema later in a pipe checks the value the steps before it let through unchanged.
    const step = item.kind === 'schema' ? readCompiled(item as Node) : compileAction(item as Action);
    if (!step) return null;
    steps.push(step.check);
    exact &&= step.exact;
  }
  return {
    check: (x) => {
      for (const step of steps) if (!step(x)) return false;
      return true;
    },
    exact,
  };
}

function compileAction(action: Action): Compiled | null {
  const requirement = action.requirement;
  if (action.kind === 'validation') {
    switch (action.type) {
      case 'integer':
      case 'check': {
        const test = requirement as (x: unknown) => boolean;
        return { check: (x) => Boolean(test(x)), exact: true };
      }
      case 'min_value':
        return { check: (x) => (x as number) >= (requirement as number), exact: true };
      case 'max_value':
        return { check: (x) => (x as number) <= (requirement as number), exact: true };
      case 'min_length':
        return { check: (x) => (x as { length: number }).length >= (requirement as number), exact: true };
      case 'max_length':
        return { check: (x) => (x as { length: number }).length <= (requirement as number), exact: true };
      case 'regex': {
        const pattern = requirement as RegExp;
        return { check: (x) => pattern.test(x as string), exact: true };
      }
      default:
        return null;
    }
  }
  // A transformation's output equals its input only where it changes nothing.
  if (action.kind === 'transformation') {
    switch (action.type) {
      case 'to_upper_case':
        return { check: (x) => x === (x as string).toUpperCase(), exact: false };
      case 'to_lower_case':
        return { check: (x) => x === (x as string).toLowerCase(), exact: false };
      case 'trim':
        return { check: (x) => x === (x as string).trim(), exact: false };
      default:
        return null;
    }
  }
  return null;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && Object.getPrototypeOf(x) === Object.prototype;
}

/** The keys valibot leaves out of an object's output. */
function isDroppedKey(key: string): boolean {
  return key === '__proto__' || key === 'prototype' || key === 'constructor';
}

/** valibot's literal comparison: `===`, except that NaN equals NaN. */
function sameValueZero(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b);
}
