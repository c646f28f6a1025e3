/**
 * Puppeteer's `ElementHandle.uploadFile()` and `FileChooser.accept()` on a remote browser: both
 * end in `DOM.setFileInputFiles` with client PATHS (puppeteer#8470). Every command of every
 * session of a Puppeteer connection leaves through its `Connection._rawSend`, so that one
 * method is patched on the instance: this one command is answered by sending the files' bytes
 * (remote-cdp/uploads.ts) on the same session; every other command passes untouched.
 */
import type { Connection } from 'puppeteer-core';
import { type SetFileInputFilesParams, setInputFilesFromClient } from '../remote-cdp/uploads.js';

type RawSend = (
  callbacks: unknown,
  method: string,
  params: object | undefined,
  sessionId: string | undefined,
  options: unknown,
) => Promise<unknown>;

/** Makes `connection` upload client files' bytes where Puppeteer would send their paths. */
export function bridgeUploads(connection: Connection): void {
  const internal = connection as unknown as { _rawSend: RawSend };
  const rawSend = internal._rawSend;
  if (typeof rawSend !== 'function') return;
  internal._rawSend = function rawSendWithUploads(callbacks, method, params, sessionId, options) {
    if (method !== 'DOM.setFileInputFiles')
      return rawSend.call(connection, callbacks, method, params, sessionId, options);
    const send = (next: string, nextParams?: object) =>
      rawSend.call(connection, callbacks, next, nextParams, sessionId, options);
    return setInputFilesFromClient(send, params as SetFileInputFilesParams).then(() => ({}));
  };
}
