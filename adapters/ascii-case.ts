/**
 * Header names compared without regard to ASCII case, without `toLowerCase`: core asks for names
 * already in lower case, and on Node 20 each `toLowerCase` of one cost ~850 instructions (a call
 * into the ICU-aware builtin), ~2,500 per passthrough request in these adapters (`npm run
 * bench:instructions -- --server --top`), where a loop over its characters costs a few dozen.
 */

/** `name` in lower case: itself when it has no upper-case ASCII letter (the common case). */
export function lowerAscii(name: string): string {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c > 127) return name.toLowerCase();
  }
  return name;
}

/** Whether `name` is `lower` (all lower case already) but for the case of its ASCII letters. */
export function equalsLowerAscii(name: string, lower: string): boolean {
  if (name.length !== lower.length) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const folded = c >= 65 && c <= 90 ? c + 32 : c;
    if (folded !== lower.charCodeAt(i)) return false;
  }
  return true;
}
