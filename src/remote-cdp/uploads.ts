/**
 * Uploads of client files to a remote browser. `DOM.setFileInputFiles` takes file PATHS, which
 * the browser opens on its own disk: a remote browser uploads nothing, or someone else's file
 * (Puppeteer's `uploadFile()` and `FileChooser.accept()` send exactly this, puppeteer#8470).
 * `setInputFilesFromClient()` does what that call does, with the bytes: each file is read on
 * the client in 64 KB chunks and sent over CDP into the element's page, where the chunks
 * become a `File` (name, type, last-modified as the browser would set them); the files are
 * assigned to the input through a `DataTransfer` and `input` and `change` are dispatched, as
 * the real call does. The client holds at most 1 MB of a file at a time; the page holds the files, as it
 * would after a local upload.
 */
import { RemoteBrowserError } from '../http/errors.js';
import { nodeFs, nodeFsPromises, nodePath } from '../http/node-builtins.js';

/** Sends one CDP command on the session of the element's page. */
export type CdpSend = (method: string, params?: object) => Promise<unknown>;

/** `DOM.setFileInputFiles`'s params. */
export interface SetFileInputFilesParams {
  files: string[];
  nodeId?: number;
  backendNodeId?: number;
  objectId?: string;
}

/** A client file that cannot be uploaded (the message names it and why). */
export class UploadFileError extends RemoteBrowserError {
  override name = 'UploadFileError';
}

/**
 * Raw bytes per CDP message, and how many messages are on the wire at once. As for downloads
 * (download-transfer.ts), a chunk's base64 text stays below V8's large-object size, so it dies
 * young and the client's memory stays flat; the calls in flight keep 1 MB on the wire per round
 * trip. Chromium runs a session's calls in order, so the page gets the chunks in order.
 */
const CHUNK_BYTES = 64 * 1024;
const CALLS_IN_FLIGHT = 16;

const HOLDER = 'function () { return { parts: [], files: [] }; }';

const PUSH = `function (data) {
  const bytes = typeof Uint8Array.fromBase64 === 'function'
    ? Uint8Array.fromBase64(data)
    : Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  this.parts.push(bytes);
}`;

const SEAL = `function (name, type, lastModified) {
  this.files.push(new File(this.parts, name, { type, lastModified }));
  this.parts = [];
}`;

const ASSIGN = `function (holder) {
  const transfer = new DataTransfer();
  for (const file of holder.files) transfer.items.add(file);
  this.files = transfer.files;
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
}`;

interface CallResult {
  result?: { objectId?: string };
  exceptionDetails?: { text?: string; exception?: { description?: string } };
}

/** Sets the files of an `<input type=file>` from client paths, sending their bytes over CDP. */
export async function setInputFilesFromClient(
  send: CdpSend,
  params: SetFileInputFilesParams,
): Promise<void> {
  const files = await Promise.all(params.files.map(describe));
  const element = params.objectId ?? (await resolve(send, params));
  const call = async (objectId: string, functionDeclaration: string, args: unknown[] = []) => {
    const answer = (await send('Runtime.callFunctionOn', {
      objectId,
      functionDeclaration,
      arguments: args.map((value) =>
        typeof value === 'object' && value !== null ? value : { value },
      ),
    })) as CallResult;
    if (answer.exceptionDetails) {
      const details = answer.exceptionDetails;
      throw new UploadFileError(
        `upload: the page refused the files: ${details.exception?.description ?? details.text}`,
      );
    }
    return answer.result?.objectId;
  };
  const holder = await call(element, HOLDER);
  if (!holder) throw new UploadFileError('upload: the page did not answer');
  const pushes: Promise<unknown>[] = [];
  try {
    for (const file of files) {
      for await (const chunk of nodeFs().createReadStream(file.path, {
        highWaterMark: CHUNK_BYTES,
      })) {
        const push = call(holder, PUSH, [(chunk as Buffer).toString('base64')]);
        // Awaited below in order; a failure is thrown there, the rest then settle unobserved.
        push.catch(() => {});
        pushes.push(push);
        if (pushes.length >= CALLS_IN_FLIGHT) await pushes.shift();
      }
      await Promise.all(pushes.splice(0));
      await call(holder, SEAL, [file.name, file.type, file.lastModified]);
    }
    await call(element, ASSIGN, [{ objectId: holder }]);
  } finally {
    await send('Runtime.releaseObject', { objectId: holder }).catch(() => {});
  }
}

/** mime-types loads its whole database: only when a file is uploaded, not at import. */
let mimeTypes: Promise<typeof import('mime-types')> | undefined;

async function describe(path: string) {
  mimeTypes ??= import('mime-types');
  const { lookup } = await mimeTypes;
  const info = await nodeFsPromises()
    .stat(path)
    .catch((error: NodeJS.ErrnoException) => {
      throw new UploadFileError(
        `upload: files: "${path}" cannot be read on the client (${error.code})`,
        {
          cause: error,
        },
      );
    });
  if (!info.isFile())
    throw new UploadFileError(`upload: files: "${path}" is not a file; only files can be uploaded`);
  return {
    path,
    name: nodePath().basename(path),
    type: lookup(path) || '',
    lastModified: Math.floor(info.mtimeMs),
  };
}

async function resolve(send: CdpSend, params: SetFileInputFilesParams): Promise<string> {
  const resolved = (await send('DOM.resolveNode', {
    ...(params.backendNodeId !== undefined ? { backendNodeId: params.backendNodeId } : {}),
    ...(params.nodeId !== undefined ? { nodeId: params.nodeId } : {}),
  })) as { object?: { objectId?: string } };
  const objectId = resolved.object?.objectId;
  if (!objectId) throw new UploadFileError('upload: the file input is no longer in the page');
  return objectId;
}
