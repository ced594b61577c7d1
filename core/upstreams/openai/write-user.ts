/**
 * The longest `user` OpenAI-compatible hosts take: OpenRouter and others refuse one over 128
 * characters, api.openai.com one over 64 (Bifrost's finding, maximhq/bifrost#1000). Claude
 * Code's `metadata.user_id` is a ~150-character JSON object, so sent as it is, every one of its
 * calls to such a host was a 400.
 */
const MAX_USER = 64;

/**
 * A client's end-user id as the `user` field: as it is when it fits, else a digest of it that is
 * the same for the same id (the field exists to tell end users apart), `u-` and 32 hex digits.
 */
export function writeOpenAIUser(id: string): string {
  return id.length <= MAX_USER ? id : `u-${fnv1a(id, 0x811c9dc5)}${fnv1a(id, 0x01000193)}${fnv1a(id, 0x9e3779b9)}${fnv1a(id, 0x85ebca6b)}`;
}

/** 32-bit FNV-1a over UTF-16 code units from `seed`, as 8 hex digits: not secret, only stable. */
function fnv1a(text: string, seed: number): string {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
