// Module hooks for bench/entry-cost.ts: report to stderr every peer library whose entry gets
// resolved (playwright-core, puppeteer-core, @playwright/test), and the runtime dependencies.
import { writeSync } from 'node:fs';

const WATCHED = /\/node_modules\/(playwright-core|puppeteer-core|@playwright\/test|undici|zod)\//;

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const match = WATCHED.exec(result.url);
  if (match) writeSync(2, `LOADED ${match[1]}\n`);
  return result;
}
