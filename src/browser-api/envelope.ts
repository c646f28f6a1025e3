/**
 * The browser service's success envelope (browser-api.md): every success body is `{ data }`.
 * The transport calls this on each success but a 204 (`payloadOf`), so the generic transport
 * knows nothing of this service's shape.
 */
import { ResponseValidationError } from '../http/errors.js';

/** The payload of a `{ data }` body; a ResponseValidationError naming `data` for anything else. */
export function unwrapData(body: unknown, what: string): unknown {
  if (typeof body !== 'object' || body === null || !('data' in body)) {
    throw new ResponseValidationError(what, [
      { path: 'data', message: 'is missing: success bodies wrap their payload in { data }' },
    ]);
  }
  return (body as { data: unknown }).data;
}
