import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ConsumerProject, createConsumerProject } from '../docs/consumer-project.js';

// A user's playwright.config.ts and spec, type-checked against the built package as a fresh
// nodenext project sees it: `defineConfig` from @playwright/test must accept `use.remote` with
// its real type once remote-browser/test is imported.
const CONFIG = `import { defineConfig, devices } from '@playwright/test';
import { defineRemoteConfig } from 'remote-browser/test';

export default defineRemoteConfig(
  defineConfig({
    use: { baseURL: 'http://127.0.0.1:3000', remote: { country: 'us', sessionScope: 'test' } },
    projects: [
      { name: 'remote', use: { ...devices['Desktop Chrome'], remote: { country: 'de', recording: 'on' } } },
    ],
  }),
  { emulator: 'auto' },
);

// @ts-expect-error sessionScope is 'worker' | 'test'
defineConfig({ use: { remote: { sessionScope: 'suite' } } });
// @ts-expect-error country is a string
defineConfig({ use: { remote: { country: 1 } } });
// @ts-expect-error recording is 'off' | 'on' | 'retain-on-failure'
defineConfig({ projects: [{ use: { remote: { recording: true } } }] });
`;

const SPEC = `import { expect, test } from 'remote-browser/test';

test.use({ remote: { country: 'gb', launchTimeout: 60_000 } });

test('the page', async ({ page, remoteSession }) => {
  const id: string = remoteSession.id;
  await page.goto('/');
  await expect(page).toHaveTitle(/./);
  expect(id).toBeTruthy();
});
`;

// Without remote-browser/test's types in the program, the same config is Playwright's TS2769:
// proves the check above can fail, and that this harness resolves @playwright/test for real.
const WITHOUT = `import { defineConfig } from '@playwright/test';

export default defineConfig({ use: { remote: { country: 'us' } } });
`;

describe.skipIf(!existsSync(resolve('dist/test.d.ts')))('use.remote in a Playwright config', () => {
  const projects: ConsumerProject[] = [];
  afterAll(() => {
    for (const project of projects) project.remove();
  });

  it('type-checks with defineConfig from @playwright/test, and a wrong option type is an error', () => {
    const project = createConsumerProject();
    projects.push(project);
    const files = [
      project.write('playwright.config.ts', CONFIG),
      project.write('tests/shop.spec.ts', SPEC),
    ];
    expect(project.typecheck(files)).toEqual([]);
  }, 240_000);

  it('is an error in a config that does not load remote-browser/test', () => {
    const project = createConsumerProject();
    projects.push(project);
    const diagnostics = project.typecheck([project.write('playwright.config.ts', WITHOUT)]);
    expect(diagnostics).toEqual([
      expect.stringMatching(/^playwright\.config\.ts:3: TS2769 .*'remote' does not exist/s),
    ]);
  }, 240_000);
});
