/** Input checks that run before any request, so a bad call is never sent (nor charged). */
import { RequestValidationError } from '../http/errors.js';

/**
 * `assistant_c` is valid in the schema but unavailable; what the service does with it is not
 * documented, so it is refused here unless the caller opts in.
 */
export function rejectUnavailablePlatforms(
  what: string,
  platforms: readonly string[],
  allowUnavailablePlatforms: boolean,
): void {
  if (allowUnavailablePlatforms) return;
  const index = platforms.indexOf('assistant_c');
  if (index === -1) return;
  throw new RequestValidationError(what, [
    {
      path: `platforms.${index}`,
      message:
        '"assistant_c" is currently unavailable; leave it out (or pass allowUnavailablePlatforms: true to send it anyway)',
    },
  ]);
}
