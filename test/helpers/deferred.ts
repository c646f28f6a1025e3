/**
 * A promise and its resolve/reject, to settle from the test (a create's answer, a held call).
 * Unlike src/launch/recordings.ts's `deferred`, a rejection nobody awaits stays unhandled, so
 * vitest reports it. (`Promise.withResolvers` needs Node 22.)
 */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
