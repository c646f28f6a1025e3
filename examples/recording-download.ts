/**
 * Download a session's recording after it ends (recordings publish only after the session
 * ends, and their URLs expire in about 10 minutes: recordingOf() waits, re-fetches, streams).
 * Run: npx tsx examples/recording-download.ts
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchRemote, recordingOf } from 'remote-browser/playwright';
import { setup } from './_setup.js';

const { site, close } = await setup();
try {
  const dir = mkdtempSync(join(tmpdir(), 'recordings-'));
  const browser = await launchRemote({ recording: { dir } });
  const page = browser.contexts()[0]!.pages()[0]!;
  await page.goto(`${site}/products`);
  await page.waitForTimeout(1000);
  await browser.close();
  const { files } = await recordingOf(browser);
  console.log(`recording saved: ${files.join(', ')}`);
  if (files.length === 0) throw new Error('no recording');
} finally {
  await close();
}
