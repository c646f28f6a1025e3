/**
 * A JSON call's response body: read with a size cap, parsed leniently (an error page stays
 * text), and a socket error said in one line. Used by the transport's one attempt.
 */
import type { Dispatcher } from 'undici';
import { ResponseTooLargeError } from './errors.js';

/**
 * A response body as text, read only up to `max` bytes: a Content-Length above it, or more
 * bytes than it, throws a ResponseTooLargeError and destroys the rest of the body.
 */
export async function readCapped(
  response: Dispatcher.ResponseData,
  max: number,
  what: string,
): Promise<string> {
  const length = Number([response.headers['content-length']].flat()[0]);
  const tooLarge = () => new ResponseTooLargeError(what, max, 'maxResponseBytes');
  if (Number.isFinite(length) && length > max) {
    response.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > max) {
      response.body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, bytes).toString('utf8');
}

export function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  }
}

/**
 * The socket error in one line: OpenSSL's multi-line record (`…:SSL routines:ssl3_get_record:wrong
 * version number:../deps/…:350:`) becomes its reason, so the hint that follows is what stands out.
 */
export function socketReason(error: unknown): string {
  const message = String((error as Error)?.message ?? error);
  const ssl = /SSL routines:[^:]*:([^:]+):/.exec(message);
  if (ssl) return `TLS handshake failed: ${ssl[1]}`;
  return (message.split('\n')[0] ?? message).trim();
}
