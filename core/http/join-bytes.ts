/** Chunks whose sizes add up to `size` as one array; a single chunk comes back as it is (no copy). */
export function joinBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** Chunks as one array, their size counted here (for callers that did not keep it). */
export function joinChunks(chunks: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const chunk of chunks) size += chunk.byteLength;
  return joinBytes(chunks, size);
}
