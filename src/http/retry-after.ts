/**
 * Parses an HTTP `Retry-After` value (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date.
 * Returns the wait in milliseconds (never negative), or undefined when absent or unparseable.
 * Pure: the current time is a parameter.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  // delay-seconds is 1*DIGIT; decimals are tolerated because some services send them.
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (/^-/.test(trimmed)) return undefined;
  // An HTTP-date always names a weekday or month, so a bare number never reaches Date.parse.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The body-level `retry_after` (seconds) that both services add to 429/503 errors. */
export function parseRetryAfterSeconds(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    return Math.round(value * 1000);
  }
  if (typeof value === 'string') return parseRetryAfter(value);
  return undefined;
}
