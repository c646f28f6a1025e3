/**
 * Seeded randomness for the account service: delays and failures are drawn per row from a
 * generator keyed by the service seed and a row counter, so a seeded emulator resolves the same
 * submits the same way on every run (tests can assert on which row fails).
 */

/** FNV-1a: a stable 32-bit hash of a string, for deriving seeds and deterministic picks. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, good enough for picking delays; not for secrets. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
