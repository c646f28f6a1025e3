/**
 * The one way an identifier goes into a request path, for both clients: checked and
 * percent-encoded. An id that would change the route is refused before any request: empty
 * (`webhooks.retrieve('')` must not become `GET /webhooks/`), `.` or `..` (a dot segment:
 * `sessions.end('..')` would become `DELETE /api/v2/browser/`), or one holding `/` or `\`
 * (servers and proxies that decode `%2F`, or treat `\` as `/`, would route it elsewhere). Any
 * other character (`?`, `#`, a space) is percent-encoded and stays inside its segment.
 */
import { rejectField, shown } from './request-validation.js';

export function idSegment(what: string, field: string, id: unknown): string {
  if (typeof id !== 'string') rejectField(what, field, `must be a string (got ${shown(id)})`);
  if (id.trim() === '') rejectField(what, field, 'must not be empty');
  if (id === '.' || id === '..') {
    rejectField(what, field, `must not be ${JSON.stringify(id)} (a dot path segment)`);
  }
  if (/[/\\]/.test(id)) {
    rejectField(what, field, 'must be a single path segment: no "/" or "\\"');
  }
  return encodeURIComponent(id);
}
