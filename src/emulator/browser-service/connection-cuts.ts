/**
 * Cutting clients' connections without ending their sessions: what a proxy or load balancer
 * resetting an idle websocket, a laptop changing networks or a CI runner's NAT do to a real
 * service's users. The cdp_url websockets are tracked here as the proxy accepts them; each
 * session's `debugger_address` listener drops its own. A cut destroys the client-side TCP
 * socket; Chromium, the session and its pages keep running, and a client may connect again.
 *
 * The "flaky network" mode cuts at random (exponentially distributed) intervals, each time the
 * connections of one session picked at random among those that have any, for soak tests.
 */
import type { Duplex } from 'node:stream';

export class ClientConnections {
  readonly #bySession = new Map<string, Set<Duplex>>();
  /** Cuts made since the emulator started (or the last reset), each counting one session. */
  cuts = 0;

  /** Tracks an accepted cdp_url websocket of `sessionId` until it closes. */
  track(sessionId: string, socket: Duplex): void {
    let sockets = this.#bySession.get(sessionId);
    if (!sockets) {
      sockets = new Set();
      this.#bySession.set(sessionId, sockets);
    }
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0 && this.#bySession.get(sessionId) === sockets) {
        this.#bySession.delete(sessionId);
      }
    });
  }

  /** Sessions with at least one open cdp_url websocket. */
  sessionsWithClients(): string[] {
    return [...this.#bySession.keys()];
  }

  /** Destroys the open cdp_url websockets of one session; returns how many. */
  cut(sessionId: string): number {
    const sockets = this.#bySession.get(sessionId);
    if (!sockets) return 0;
    const count = sockets.size;
    for (const socket of [...sockets]) socket.destroy();
    return count;
  }
}

/** The session id of a cdp_url upgrade path (`/cdp/<id>...`), or undefined. */
export function sessionIdOfCdpPath(url: string | undefined): string | undefined {
  const match = /^\/cdp\/([^/?#]+)/.exec(url ?? '');
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return undefined;
  }
}

export interface FlakyNetwork {
  /** The mean interval between cuts in ms, or undefined when off. */
  readonly meanIntervalMs: number | undefined;
  /** Starts (or restarts with a new mean), or stops with undefined. */
  set(meanIntervalMs: number | undefined): void;
}

/**
 * Calls `cutOne()` at random intervals of mean `meanIntervalMs` (an exponential distribution,
 * as independent failures arrive), on real time: a network does not follow the emulator clock.
 * Its timer is unref'd, so it never keeps a process alive.
 */
export function flakyNetwork(cutOne: () => void, random: () => number = Math.random): FlakyNetwork {
  let mean: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (mean === undefined) return;
    const delay = -Math.log(1 - random()) * mean;
    timer = setTimeout(() => {
      timer = undefined;
      cutOne();
      schedule();
    }, delay);
    timer.unref();
  };
  return {
    get meanIntervalMs() {
      return mean;
    },
    set(meanIntervalMs) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      mean = meanIntervalMs;
      schedule();
    },
  };
}
