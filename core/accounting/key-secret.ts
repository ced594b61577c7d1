/** Key secrets: `sy-` + 48 hex digits (24 random bytes); only their sha256 is ever stored. */
export const SECRET_PATTERN = /^sy-[0-9a-f]{48}$/;

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function newSecret(): string {
  return `sy-${randomHex(24)}`;
}

export function newKeyId(): string {
  return `key_${randomHex(8)}`;
}

/** Enough of the secret to tell keys apart in a listing, far too little to guess the rest. */
export function secretPrefix(secret: string): string {
  return secret.slice(0, 10);
}
