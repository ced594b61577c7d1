import { JsonBody } from '../../core/http/json-body.ts';

/** A client body as the routes hand it to writers: its UTF-8 bytes, its text and its parsed object. */
export function jsonBody(value: string | object): JsonBody {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return new JsonBody(new TextEncoder().encode(text), text, JSON.parse(text) as Record<string, unknown>);
}

/** An upstream request body (text, or the client's bytes) as text. */
export function bodyText(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : new TextDecoder().decode(body);
}
