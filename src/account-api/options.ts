/** Checks of `new AccountApi(options)`: every option is named with its rule before use. */
import { checkCommonOptions, OptionChecks, optionsRoot } from '../http/client-options.js';
import { RateLimiter } from '../http/rate-limiter.js';

export function checkAccountOptions(input: unknown): void {
  const options = optionsRoot('new AccountApi', input);
  const checks = new OptionChecks('new AccountApi');
  checkCommonOptions(checks, options, 'apiKey');
  checks.boolean('allowUnavailablePlatforms', options.allowUnavailablePlatforms);
  const limits = options.rateLimits;
  if (limits !== undefined && limits !== false) {
    if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
      checks.add(
        'rateLimits',
        'must be an object ({ submit?, read?, windowMs?, maxWaitMs? }) or false',
      );
    } else {
      const given = limits as Record<string, unknown>;
      for (const group of ['submit', 'read'] as const) {
        if (given[group] instanceof RateLimiter) continue;
        checks.number(`rateLimits.${group}`, given[group], { min: 1, integer: true, finite: true });
      }
      checks.number('rateLimits.windowMs', given.windowMs, {
        min: 0,
        exclusiveMin: true,
        finite: true,
      });
      checks.number('rateLimits.maxWaitMs', given.maxWaitMs, { min: 0 });
    }
  }
  checks.done();
}
