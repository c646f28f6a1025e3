/**
 * The checks `puppeteer.launch()` can make before any request: the types of the options it maps
 * (a `defaultViewport: 'big'` is a typed error naming the field, not a late crash in Puppeteer)
 * and the drop-in's own `remote` fields. Options it ignores are not checked: they are ignored.
 */
import { z } from 'zod';
import { parseRequest } from '../http/request-validation.js';
import { type DropInRemoteOptions, parseDropInRemote } from '../launch/drop-in-options.js';
import type { PuppeteerRemoteOptions } from './launch-remote.js';

const ms = z.number().finite().nonnegative();
const viewport = z.object({
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  deviceScaleFactor: z.number().positive().optional(),
  isMobile: z.boolean().optional(),
  isLandscape: z.boolean().optional(),
  hasTouch: z.boolean().optional(),
});

const mappedSchema = z.looseObject({
  defaultViewport: viewport.nullable().optional(),
  // `'new'` is what Puppeteer < 22 took and what Crawlee still passes for it: any string is headless.
  headless: z.union([z.boolean(), z.string()]).optional(),
  timeout: ms.optional(),
  slowMo: ms.optional(),
  protocolTimeout: ms.optional(),
  args: z.array(z.string()).optional(),
  userDataDir: z.string().optional(),
  browser: z.enum(['chrome', 'firefox']).optional(),
  acceptInsecureCerts: z.boolean().optional(),
  targetFilter: z.function().optional(),
  signal: z.instanceof(AbortSignal).optional(),
});

export interface ParsedLaunch {
  dropIn: DropInRemoteOptions;
  /** `remote` without the drop-in's own fields: what `launchRemote()` takes. */
  remote: PuppeteerRemoteOptions;
  browser: string | undefined;
}

export function parseLaunchOptions(what: string, options: Record<string, unknown>): ParsedLaunch {
  parseRequest(what, mappedSchema, options, (issue) =>
    issue.code === 'invalid_type' || issue.code === 'invalid_union'
      ? `must be ${expected(issue.path.map(String))}`
      : issue.message,
  );
  const dropIn = parseDropInRemote(what, options.remote);
  const {
    strict: _strict,
    userDataDir: _dir,
    ...remote
  } = (options.remote ?? {}) as Record<string, unknown>;
  return {
    dropIn,
    remote: remote as PuppeteerRemoteOptions,
    browser: options.browser as string | undefined,
  };
}

function expected(path: string[]): string {
  switch (path[0]) {
    case 'defaultViewport':
      return path.length > 1
        ? 'a positive number'
        : '`null` or `{ width, height }` in CSS pixels (positive integers)';
    case 'headless':
      return "`true`, `false` or `'shell'`";
    case 'args':
      return 'an array of strings';
    case 'browser':
      return "`'chrome'` (remote sessions are Chromium)";
    default:
      return 'of the type puppeteer.launch() documents';
  }
}
