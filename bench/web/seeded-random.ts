/** Deterministic randomness for the simulated web: the same seed gives the same pages, failures and latencies. */

/** mulberry32: a small PRNG with a 32-bit state, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of the text, mixed with the seed: a stable 32-bit seed for one named thing (a URL path, a query). */
export function seedOf(seed: number, text: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

const Z90 = 1.2815515655446004;

/**
 * A log-normal draw with the given median and 90th percentile (sigma = ln(p90 / median) / z(0.9)), clamped to
 * [min, max]: the shape of web response times.
 */
export function logNormal(random: () => number, median: number, p90: number, min: number, max: number): number {
  const sigma = Math.log(p90 / median) / Z90;
  const u = Math.max(random(), 1e-12);
  const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  return Math.min(max, Math.max(min, median * Math.exp(sigma * normal)));
}

/** A seeded shuffle (Fisher–Yates) of a copy. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
