/**
 * The one way an identifier goes into a request path, for both clients: checked (an empty id
 * would change the route: `webhooks.retrieve('')` must not become `GET /webhooks/`) and
 * percent-encoded (a `/` or `?` in an id stays inside its segment).
 */
import { rejectField, shown } from './request-validation.js';

export function idSegment(what: string, field: string, id: unknown): string {
  if (typeof id !== 'string') rejectField(what, field, `must be a string (got ${shown(id)})`);
  if (id.trim() === '') rejectField(what, field, 'must not be empty');
  return encodeURIComponent(id);
}
