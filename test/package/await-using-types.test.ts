import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsumerProject, createConsumerProject } from '../docs/consumer-project.js';
import { requireFreshDist } from '../helpers/fresh-dist.js';

// Issue 16: `await using browser = await launchRemote()` is the cleanup a user reaches for, in a
// fresh nodenext project against the built package, for both entries and the Puppeteer drop-in.
const SCRIPT = `import { connectRemote as connectPlaywright, launchRemote as launchPlaywright } from 'remote-browser/playwright';
import { connectRemote, createSessionPool, launchRemote, puppeteer } from 'remote-browser/puppeteer';

export async function playwrightRun(): Promise<string> {
  await using browser = await launchPlaywright();
  await using again = await connectPlaywright('session-id');
  return browser.version() + again.version();
}

export async function puppeteerRun(): Promise<string> {
  await using browser = await launchRemote();
  await using again = await connectRemote('session-id');
  await using dropIn = await puppeteer.launch();
  const page = (await browser.pages())[0];
  return (await browser.version()) + (await again.version()) + (await dropIn.version()) + page?.url();
}

export async function puppeteerPoolRun(): Promise<string> {
  await using pool = createSessionPool({ size: 1 });
  await using pooled = await pool.launch();
  return pooled.version();
}
`;

// puppeteer-core's own Browser type has no Symbol.asyncDispose: the same line fails with
// TS2851, so the check above can fail and is not satisfied by an \`any\`.
const WITHOUT = `import type { Browser } from 'puppeteer-core';

export async function run(browser: Browser): Promise<void> {
  await using disposable = browser;
  void disposable;
}
`;

describe('await using on a launched browser', () => {
  const projects: ConsumerProject[] = [];
  beforeAll(() => requireFreshDist());
  afterAll(() => {
    for (const project of projects) project.remove();
  });

  it('type-checks for launchRemote/connectRemote of both entries, puppeteer.launch and a Puppeteer pool', () => {
    const project = createConsumerProject();
    projects.push(project);
    expect(project.typecheck([project.write('run.ts', SCRIPT)])).toEqual([]);
  }, 240_000);

  it("is TS2851 on puppeteer-core's own Browser type (control)", () => {
    const project = createConsumerProject();
    projects.push(project);
    expect(project.typecheck([project.write('run.ts', WITHOUT)])).toEqual([
      expect.stringMatching(/^run\.ts:4: TS2851 /),
    ]);
  }, 240_000);
});
