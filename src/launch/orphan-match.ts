/**
 * Which running session a lost create may have left behind: created since the request left
 * (with clock skew), unknown to every process on this machine, and with the requested
 * targeting. Pure and import-free: the watchdog child uses it too.
 */

/** Clock skew tolerated between this machine and the service when matching created_at. */
export const SKEW_MS = 60_000;

export const TARGETING_KEYS = [
  'country',
  'region',
  'city',
  'zip',
  'isp',
  'protocol',
  'connection_type',
  'session_type',
  'filter_mode',
  'profile_id',
] as const;

/** The targeting fields of a create body, as strings (nothing else: never the proxy password). */
export function targetingOf(body: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of TARGETING_KEYS) {
    const value = (body as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) out[key] = String(value);
  }
  return out;
}

export interface RunningSession {
  id: string;
  created_at: string;
  config?: Record<string, unknown> | undefined;
}

export function sameTargeting(
  config: Record<string, unknown> | undefined,
  targeting: Record<string, string>,
): boolean {
  if (!config) return true;
  for (const [key, want] of Object.entries(targeting)) {
    const got = config[key];
    if (got !== undefined && got !== null && String(got).toLowerCase() !== want.toLowerCase())
      return false;
  }
  return true;
}

/** True when `session` may be the one a create sent at `sinceMs` with `targeting` produced. */
export function isOrphanOf(
  session: RunningSession,
  create: { sinceMs: number; targeting: Record<string, string> },
  known: ReadonlySet<string>,
): boolean {
  return (
    !known.has(session.id) &&
    Date.parse(session.created_at) >= create.sinceMs - SKEW_MS &&
    sameTargeting(session.config, create.targeting)
  );
}
