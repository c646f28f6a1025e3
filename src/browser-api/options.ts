/** Checks of `new BrowserApi(options)`: every option is named with its rule before use. */
import { checkCommonOptions, OptionChecks, optionsRoot } from '../http/client-options.js';

export function checkBrowserOptions(input: unknown): void {
  const options = optionsRoot('new BrowserApi', input);
  const checks = new OptionChecks('new BrowserApi');
  checkCommonOptions(checks, options, 'token');
  checks.string('proxyPassword', options.proxyPassword, true);
  checks.done();
}
