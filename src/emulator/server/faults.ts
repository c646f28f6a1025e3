/**
 * Fault injection: the next matching requests fail in a described way, so client code can be
 * tested against 5xx answers, slow answers and lost connections without a flaky network.
 */
import { z } from 'zod';

export const faultSpecSchema = z.object({
  /** HTTP method to match; any method when absent. */
  method: z.string().min(1).optional(),
  /**
   * Exact pathname, or a pattern where `*` matches any run of characters (including `/`);
   * at most 2048 characters.
   */
  path: z.string().min(1).max(2048),
  /** Answer with this status instead of running the handler (so no side effect happens). */
  status: z.number().int().min(100).max(599).optional(),
  /** JSON body of that answer; default `{ error: 'Injected fault' }`. */
  body: z.unknown().optional(),
  /** Wait this long before answering (before the handler, or after it with `afterHandling`). */
  delayMs: z.number().int().min(0).max(600_000).optional(),
  /** Destroy the socket without an answer. */
  dropConnection: z.boolean().optional(),
  /**
   * Run the real handler first, then delay, drop, or answer `status` instead of its reply:
   * models "the service did the work but the response never arrived" (or a gateway in front of
   * it timed out: `status: 502`). On a websocket upgrade the 101 cannot be replaced: the socket
   * opens, the client's first frame is delivered, then the connection drops (after `delayMs`).
   */
  afterHandling: z.boolean().optional(),
  /** How many matching requests this fault applies to; default 1. */
  count: z.number().int().min(1).optional(),
});

export type FaultSpec = z.infer<typeof faultSpecSchema>;

export interface Fault extends FaultSpec {
  id: number;
  /** Matches still to serve. */
  remaining: number;
}

export class FaultRegistry {
  #nextId = 1;
  #faults: Fault[] = [];

  add(spec: FaultSpec): Fault {
    const fault: Fault = { ...spec, id: this.#nextId++, remaining: spec.count ?? 1 };
    this.#faults.push(fault);
    return fault;
  }

  /** Pending faults, oldest first. */
  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.#faults = [];
  }

  /** The oldest fault matching this request, consuming one of its uses. */
  take(method: string, pathname: string): Fault | undefined {
    const fault = this.#faults.find((f) => matchesFault(f, method, pathname));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    return { ...fault };
  }
}

export function matchesFault(
  fault: Pick<FaultSpec, 'method' | 'path'>,
  method: string,
  pathname: string,
): boolean {
  if (fault.method && fault.method.toUpperCase() !== method.toUpperCase()) return false;
  return globMatch(fault.path, pathname);
}

/**
 * `*` matches any run of characters; everything else matches itself. Greedy with one
 * backtrack point (the last `*`): at most pattern × text steps, never exponential, so a
 * pattern of many `*` cannot stall the server (a regex `.*.*.*…` could, for seconds).
 */
function globMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resumeAt = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resumeAt = t;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resumeAt;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}
