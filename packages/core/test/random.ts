/**
 * A deterministic pseudo-random sequence (mulberry32) in [0, 1), so a failing randomized case can
 * be replayed from its seed. Shared by core's property tests.
 */
export function random(seed: number): () => number {
  let value = seed;
  return () => {
    value = (value + 0x6d2b79f5) | 0;
    let mixed = Math.imul(value ^ (value >>> 15), 1 | value);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
