/** Small statistics for the bench: quantiles, interleaved A/B pairs, timing. */

export function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  // Linear interpolation between closest ranks.
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (at - lo);
}

export const median = (samples: readonly number[]) => quantile(samples, 0.5);

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

export interface Paired {
  a: number[];
  b: number[];
  /** a[i] / b[i] of each pair. */
  ratios: number[];
}

/**
 * Runs `pairs` pairs of A and B, alternating which goes first so that warm-up and drift in
 * the machine's load fall on both sides alike.
 */
export async function interleave(
  pairs: number,
  runA: () => Promise<number>,
  runB: () => Promise<number>,
): Promise<Paired> {
  const result: Paired = { a: [], b: [], ratios: [] };
  for (let i = 0; i < pairs; i++) {
    let a: number;
    let b: number;
    if (i % 2 === 0) {
      a = await runA();
      b = await runB();
    } else {
      b = await runB();
      a = await runA();
    }
    result.a.push(a);
    result.b.push(b);
    result.ratios.push(a / b);
  }
  return result;
}

/** "1.04× (A 812 ms / B 780 ms; pair ratios p25–p75 1.01–1.07×)". */
export function describeRatio(paired: Paired, unit = 'ms'): string {
  const a = median(paired.a);
  const b = median(paired.b);
  return (
    `${(a / b).toFixed(2)}× (${fmt(a)} vs ${fmt(b)} ${unit}; ` +
    `pair ratios p25–p75 ${quantile(paired.ratios, 0.25).toFixed(2)}–${quantile(paired.ratios, 0.75).toFixed(2)}×, n=${paired.a.length})`
  );
}

export const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
