/** Id path segments (issue 18). */
import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/http/errors.js';
import { idSegment } from '../../src/http/path.js';

describe('idSegment', () => {
  it('encodes an id, and rejects a non-string, blank, dot or multi-segment one naming the field', () => {
    expect(idSegment('w', 'id', 'a#b c?')).toBe('a%23b%20c%3F');
    expect(idSegment('w', 'id', '...')).toBe('...');
    for (const [id, message] of [
      [5, 'must be a string (got 5)'],
      [undefined, 'must be a string (got undefined)'],
      ['  ', 'must not be empty'],
      ['..', 'must not be ".." (a dot path segment)'],
      ['.', 'must not be "." (a dot path segment)'],
      ['a/b', 'must be a single path segment: no "/" or "\\"'],
      ['a\\b', 'must be a single path segment: no "/" or "\\"'],
    ] as const) {
      let error: unknown;
      try {
        idSegment('sessions.retrieve', 'id', id);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues).toEqual([{ path: 'id', message }]);
    }
  });
});
