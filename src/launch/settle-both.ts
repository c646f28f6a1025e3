/**
 * An adapter's close(): the disconnect and finish() run together; both are waited for, and a
 * failed finish() (the session may still be running) wins over a failed disconnect.
 */
export async function settleBoth(
  disconnect: Promise<unknown>,
  finish: Promise<void>,
): Promise<void> {
  const [closed, finished] = await Promise.allSettled([disconnect, finish]);
  if (finished.status === 'rejected') throw finished.reason;
  if (closed.status === 'rejected') throw closed.reason;
}
