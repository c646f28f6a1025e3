/** Identifiers interpolated into paths: checked (an empty one changes the route) and encoded. */
import { rejectField, shown } from './request-validation.js';

export function idSegment(what: string, field: string, id: unknown): string {
  if (typeof id !== 'string') rejectField(what, field, `must be a string (got ${shown(id)})`);
  if (id.trim() === '') rejectField(what, field, 'must not be empty');
  return encodeURIComponent(id);
}
