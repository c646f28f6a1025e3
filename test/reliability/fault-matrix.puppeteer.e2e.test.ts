/** The fault matrix (fault-matrix.ts) on remote-browser/puppeteer. */
import { launchRemote } from '../../src/puppeteer/index.js';
import { defineFaultMatrix, SHARED_GAPS } from './fault-matrix.js';

defineFaultMatrix(
  {
    name: 'Puppeteer',
    async launch(credentials) {
      const browser = await launchRemote(credentials);
      await browser.version();
      return () => browser.close();
    },
  },
  {
    gaps: SHARED_GAPS,
    sharedRows: {
      names: [
        'POST /configurations/validate (preflight)',
        'GET /sessions (reconciliation after a lost create)',
        'GET /sessions/{id}/connection',
      ],
      coveredBy: 'the Playwright matrix',
    },
  },
);
