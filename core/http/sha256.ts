const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * SHA-256 as lowercase hex, through WebCrypto. It is asynchronous (on Node a round trip through
 * the libuv thread pool), so the per-request key check does not call it for keys it has seen:
 * `hashPresentedKey` remembers digests. A synchronous JavaScript SHA-256 (@noble/hashes) was
 * used before the memo existed; loaded and run once it held ~8 MiB of Bun's resident memory
 * (~2 MiB on Node), against ~2 MiB (0.4) for WebCrypto's first digest.
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  let hex = '';
  for (const byte of digest) hex += HEX[byte];
  return hex;
}
