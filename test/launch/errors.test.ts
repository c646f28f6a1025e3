/** The launch errors' messages and fields. */
import { describe, expect, it } from 'vitest';
import { LaunchError, PreflightError, ProfileLimitError } from '../../src/launch/errors.js';

describe('launch errors', () => {
  it('LaunchError carries its session id and shows it only when there is one', () => {
    const cause = new Error('ws closed');
    const error = new LaunchError('launchRemote: could not connect', { cause, sessionId: 's-1' });
    expect(error.name).toBe('LaunchError');
    expect(error.sessionId).toBe('s-1');
    expect(error.cause).toBe(cause);
    expect(error.toJSON()).toEqual({
      name: 'LaunchError',
      message: 'launchRemote: could not connect',
      sessionId: 's-1',
    });
    const bare = new LaunchError('launchRemote: no');
    expect(bare.sessionId).toBeUndefined();
    expect(bare.toJSON()).toEqual({ name: 'LaunchError', message: 'launchRemote: no' });
  });

  it('PreflightError lists each issue with its field, suggestion and code', () => {
    const issues = [
      { code: 'unknown_country', field: 'country', message: 'no such', suggestion: 'us' },
      { code: 'bad', field: 'region', message: 'wrong', suggestion: undefined },
    ];
    const error = new PreflightError('launchRemote', issues);
    expect(error.name).toBe('PreflightError');
    expect(error.message).toBe(
      'launchRemote: preflight failed, no session was created: country: no such (suggestion: us) [unknown_country]; region: wrong [bad]',
    );
    expect(error.issues).toBe(issues);
    expect(error.toJSON()).toEqual({ name: 'PreflightError', message: error.message, issues });
  });

  it('ProfileLimitError keeps the existing names and the cause', () => {
    const cause = new Error('429');
    const error = new ProfileLimitError('ensureProfile: limit', ['a', 'b'], cause);
    expect(error.name).toBe('ProfileLimitError');
    expect(error.message).toBe('ensureProfile: limit');
    expect(error.existing).toEqual(['a', 'b']);
    expect(error.cause).toBe(cause);
  });
});
