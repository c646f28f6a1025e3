/**
 * The detached watchdog process. It holds an IPC channel to its parent; when the channel
 * closes without a clean goodbye (the parent was SIGKILLed, ran out of memory, crashed) it
 * deletes the sessions the parent still held, then exits. Standalone on purpose: it imports
 * nothing of the library, so it starts fast and cannot be broken by the parent's state.
 * Credentials arrive in the environment, never in argv (visible to `ps`).
 */
const origin = process.env.REMOTE_BROWSER_WATCHDOG_ORIGIN ?? '';
const token = process.env.REMOTE_BROWSER_WATCHDOG_TOKEN ?? '';
delete process.env.REMOTE_BROWSER_WATCHDOG_TOKEN;

const sessions = new Set<string>();
let clean = false;

process.on('message', (message: { add?: string; remove?: string; bye?: boolean }) => {
  if (message.add) sessions.add(message.add);
  if (message.remove) sessions.delete(message.remove);
  if (message.bye) clean = true;
});

process.on('disconnect', () => {
  if (clean || sessions.size === 0) process.exit(0);
  void Promise.allSettled(
    [...sessions].map((id) =>
      fetch(`${origin}/api/v2/browser/sessions/${encodeURIComponent(id)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(15_000),
      }),
    ),
  ).finally(() => process.exit(0));
});

process.send?.({ ready: true });
