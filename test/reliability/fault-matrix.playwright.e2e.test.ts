/** The fault matrix (fault-matrix.ts) on remote-browser/playwright. */
import { launchRemote } from '../../src/playwright/index.js';
import { defineFaultMatrix, SHARED_GAPS } from './fault-matrix.js';

defineFaultMatrix(
  {
    name: 'Playwright',
    async launch(credentials) {
      const browser = await launchRemote(credentials);
      const page = browser.contexts()[0]?.pages()[0];
      if (!page) throw new Error('no default page on the remote browser');
      await page.evaluate(() => 1 + 1);
      return () => browser.close();
    },
  },
  { gaps: SHARED_GAPS },
);
