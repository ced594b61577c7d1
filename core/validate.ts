import * as v from 'valibot';
import { GatewayError } from './errors.ts';
import { compileCheck } from './valibot-check.ts';

interface Leaf {
  path: string | undefined;
  issue: v.BaseIssue<unknown>;
}

/** Descends into union/variant sub-issues so the message names the field that really failed. */
function expand(issue: v.BaseIssue<unknown>, parent: string | undefined): Leaf[] {
  const own = v.getDotPath(issue);
  const path = own ?? parent;
  if (issue.issues?.length && (issue.type === 'union' || issue.type === 'variant')) {
    return issue.issues.flatMap((child) => {
      const childPath = v.getDotPath(child);
      return expand({ ...child, path: undefined }, childPath ? (path ? `${path}.${childPath}` : childPath) : path);
    });
  }
  return [{ path, issue }];
}

export function issuesToMessage(issues: readonly v.BaseIssue<unknown>[], max = 3): { message: string; param?: string } {
  const leaves = issues.flatMap((issue) => expand(issue, undefined));
  const unique = leaves.filter((leaf, i) => leaves.findIndex((o) => o.path === leaf.path && o.issue.message === leaf.issue.message) === i);
  const lines = unique.slice(0, max).map(({ path, issue }) => `${path ?? 'body'}: ${issue.message}`);
  const more = unique.length > max ? ` (and ${unique.length - max} more)` : '';
  return { message: lines.join('; ') + more, param: unique[0]?.path };
}

/**
 * A JSON object, kept as sent. valibot's `record` would take an array for one (`[1]` became
 * `{"0":1}`) and drop keys named `__proto__`, `prototype` or `constructor`, which a tool's
 * arguments or a JSON schema may well have.
 */
export function jsonObject(message: string) {
  return v.custom<Record<string, unknown>>((x) => typeof x === 'object' && x !== null && !Array.isArray(x), message);
}

/**
 * `schema`, an object schema, refusing an array. valibot's object schemas take an array for an
 * object (`[]` is read as `{}`, `[{"a":1}]` as `{"0":{"a":1}}`), which an object whose fields are
 * all optional would then pass on. Not for a variant's options, which must stay object schemas
 * (an array has no discriminator, so they refuse it already), nor needed where a field is required.
 */
export function notArray<TSchema extends v.GenericSchema>(schema: TSchema, message = 'must be an object') {
  return v.pipe(v.custom<v.InferInput<TSchema>>((x) => !Array.isArray(x), message), schema);
}

/**
 * Validates a parsed body; a failure is a 400 naming the first offending fields. A body the
 * schema's compiled check passes is its own output (no copy of every object in it); anything
 * else, and every failure with its messages, is valibot's.
 */
export function parseWith<TSchema extends v.GenericSchema>(schema: TSchema, input: unknown): v.InferOutput<TSchema> {
  if (compileCheck(schema)?.(input)) return input as v.InferOutput<TSchema>;
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const { message, param } = issuesToMessage(result.issues);
  throw new GatewayError('invalid_request', message, { param });
}
