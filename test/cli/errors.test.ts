import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/cli/errors.js';
import { ConnectionError } from '../../src/http/errors.js';

const refused = (hint: string | undefined) =>
  Object.assign(
    new ConnectionError(
      `sessions.list: GET /api/v2/browser/sessions failed without a response: connect ECONNREFUSED 127.0.0.1:1${hint ? `. ${hint}` : ''}`,
      { requestSent: false, hint },
    ),
    { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) },
  );

describe('describeError', () => {
  it("gives a refused connection one hint: the library's, when its message already says what to change", () => {
    const hint =
      'nothing is listening at http://127.0.0.1:1: start the service or correct REMOTE_BROWSER_URL';
    const described = describeError(refused(hint));
    expect(described.message).not.toContain(hint);
    expect(described.message).toMatch(/ECONNREFUSED/);
    expect(described.hint).toBe(hint);
  });

  it("adds the CLI's hint when the library had none", () => {
    const described = describeError(refused(undefined));
    expect(described.hint).toMatch(/is the service up/);
  });
});
