/**
 * A session on one target of the browser, spoken through the browser-level session (non-flat
 * `Target.attachToTarget` + `Target.sendMessageToTarget`). Playwright's browser CDP session
 * drops the messages of flattened child sessions (remote-cdp.ts), so this is the one way both
 * libraries' sessions can reach inside a page, for the few commands that must run there (reading
 * a `blob:` URL of the page).
 */
import type { RemoteCdp } from './remote-cdp.js';

export interface TargetSession {
  send<T = unknown>(method: string, params?: object): Promise<T>;
  detach(): Promise<void>;
}

type Host = Pick<RemoteCdp, 'send' | 'on'>;

interface Reply {
  id?: number;
  result?: unknown;
  error?: { message: string };
  method?: string;
  params?: unknown;
}

/** An event the target sent on this session (e.g. `Target.attachedToTarget` of a child). */
export type TargetEventListener = (method: string, params: unknown) => void;

export async function attachToTarget(
  host: Host,
  targetId: string,
  onEvent?: TargetEventListener,
): Promise<TargetSession> {
  const { sessionId } = await host.send<{ sessionId: string }>('Target.attachToTarget', {
    targetId,
    flatten: false,
  });
  let next = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const stop = host.on(
    'Target.receivedMessageFromTarget',
    (e: { sessionId: string; message: string }) => {
      if (e.sessionId !== sessionId) return;
      const reply = JSON.parse(e.message) as Reply;
      if (reply.method !== undefined) {
        onEvent?.(reply.method, reply.params);
        return;
      }
      const waiter = reply.id === undefined ? undefined : pending.get(reply.id);
      if (!waiter || reply.id === undefined) return;
      pending.delete(reply.id);
      if (reply.error) waiter.reject(new Error(reply.error.message));
      else waiter.resolve(reply.result);
    },
  );
  const stopDetached = host.on('Target.detachedFromTarget', (e: { sessionId: string }) => {
    if (e.sessionId !== sessionId) return;
    for (const waiter of pending.values()) waiter.reject(new Error('the target went away'));
    pending.clear();
  });
  return {
    send<T>(method: string, params: object = {}): Promise<T> {
      const id = ++next;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        host
          .send('Target.sendMessageToTarget', {
            sessionId,
            message: JSON.stringify({ id, method, params }),
          })
          .catch((error: Error) => {
            pending.delete(id);
            reject(error);
          });
      });
    },
    async detach() {
      stop();
      stopDetached();
      await host.send('Target.detachFromTarget', { sessionId }).catch(() => {});
    },
  };
}
