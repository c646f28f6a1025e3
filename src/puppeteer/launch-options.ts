/**
 * The checks `puppeteer.launch()` can make before any request: the types of the options it maps
 * (a `defaultViewport: 'big'` is a typed error naming the field, not a late crash in Puppeteer)
 * and its `remote` options, with the entry's one schema (launch/option-schemas.ts). Options it
 * ignores are not checked: they are ignored.
 */
import { type DropInRemoteOptions, splitRemote } from '../launch/drop-in-options.js';
import { LAUNCH_SCHEMAS } from '../launch/option-schemas.js';
import { parseEntry } from '../launch/parse-options.js';
import type { PuppeteerRemoteOptions } from './launch-remote.js';

export interface ParsedLaunch {
  dropIn: DropInRemoteOptions;
  /** `remote` without the drop-in's own fields: what `launchRemote()` takes. */
  remote: PuppeteerRemoteOptions;
  browser: string | undefined;
}

export function parseLaunchOptions(what: string, options: Record<string, unknown>): ParsedLaunch {
  parseEntry(what, LAUNCH_SCHEMAS.puppeteerDropIn, options);
  return {
    ...splitRemote<PuppeteerRemoteOptions>(options.remote),
    browser: options.browser as string | undefined,
  };
}
