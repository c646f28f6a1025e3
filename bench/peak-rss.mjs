/**
 * How long `run` takes and how far this process's RSS rises above where it was when `run`
 * started (sampled every 5 ms, and once more at the end), in MB. For the bench children that
 * measure a client's memory in a fresh process (download-child.mjs, remote-download-child.mjs,
 * upload-cost.mjs).
 */
export async function timeAndPeakRss(run) {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const t0 = performance.now();
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - t0;
  peak = Math.max(peak, process.memoryUsage.rss());
  return { ms, peakMb: (peak - base) / (1024 * 1024) };
}
