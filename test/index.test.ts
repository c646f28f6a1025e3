import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';

describe('the remote-browser root entry', () => {
  it('exports the client, the error classes with their guards, redaction and the rate limiter', () => {
    for (const name of [
      'BrowserApi',
      'LocationsPage',
      'SessionCreateParamsSchema',
      'SessionSchema',
      'RecordingSchema',
      'ProfileSchema',
      'LocationItemSchema',
      'ProxyOptionsSchema',
      'ValidationResultSchema',
      'FilterModeSchema',
      'ApiError',
      'BadRequestError',
      'AuthenticationError',
      'NotFoundError',
      'RateLimitError',
      'UpstreamError',
      'ServiceUnavailableError',
      'ConnectionError',
      'TimeoutError',
      'AbortError',
      'RequestValidationError',
      'ResponseValidationError',
      'ConfigurationError',
      'isRateLimitError',
      'isRequestValidationError',
      'redact',
      'registerSecret',
      'RateLimiter',
    ]) {
      expect(root, name).toHaveProperty(name);
    }
  });

  it('does not export the transport internals', () => {
    expect(root).not.toHaveProperty('Transport');
    expect(root).not.toHaveProperty('clearRegisteredSecrets');
  });
});
