/**
 * `remote-browser screenshot|pdf|content <url>`: one throwaway session, navigate, the page
 * action, the session ended (also on Ctrl-C). Three commands of one shape, so one file.
 * The service's REST page actions run in the remote browser, which cannot reach this machine:
 * a URL on its loopback (a dev server) is driven over the session's cdp_url through the tunnel
 * instead (page-over-cdp.ts).
 */
import type { Command } from 'commander';
import type { BrowserApi } from '../../browser-api/index.js';
import { act, type Runtime, withJson } from '../kit.js';
import { bytes } from '../progress.js';
import { targetingOf, withTargeting } from '../targeting.js';
import { withThrowawaySession } from '../throwaway-session.js';

interface PageAction {
  name: 'screenshot' | 'pdf' | 'content';
  about: string;
  /** Default output file; none means stdout. */
  file: string | undefined;
  take(api: BrowserApi, sessionId: string, signal: AbortSignal): Promise<Buffer | string>;
}

const ACTIONS: PageAction[] = [
  {
    name: 'screenshot',
    about: 'save a PNG screenshot of a page, taken by a throwaway remote session',
    file: 'screenshot.png',
    take: (api, session_id, signal) => api.tools.screenshot({ session_id }, { signal }),
  },
  {
    name: 'pdf',
    about: 'save a page as PDF, printed by a throwaway remote session',
    file: 'page.pdf',
    take: (api, session_id, signal) => api.tools.pdf({ session_id }, { signal }),
  },
  {
    name: 'content',
    about: "print a page's rendered HTML, read by a throwaway remote session",
    file: undefined,
    take: (api, session_id, signal) => api.tools.content({ session_id }, { signal }),
  },
];

export function register(program: Command, rt: Runtime): void {
  for (const action of ACTIONS) {
    withJson(
      withTargeting(
        program
          .command(action.name)
          .description(action.about)
          .argument('<url>', 'page to open')
          .option(
            '-o, --output <file>',
            action.file ? `file to write` : 'file to write instead of stdout',
            action.file,
          ),
      ),
    ).action(
      act(rt, async (out, [url], opts) => {
        const overCdp = await import('../page-over-cdp.js');
        const local = overCdp.isOnClientLoopback(url as string);
        return withThrowawaySession(out, targetingOf(opts), action.name, async (s) => {
          let taken: Buffer | string;
          if (local) {
            taken = await overCdp.takeOverCdp(s.cdpUrl, url as string, action.name, s.signal);
          } else {
            await s.api.tools.navigate(
              { session_id: s.info.id, url: url as string },
              { signal: s.signal },
            );
            taken = await action.take(s.api, s.info.id, s.signal);
          }
          const file = opts.output as string | undefined;
          if (file === undefined || file === '-') {
            if (out.mode.json) out.json({ session_id: s.info.id, url, content: taken.toString() });
            else out.line(taken.toString());
            return;
          }
          const { writeFile } = await import('node:fs/promises');
          const { resolve } = await import('node:path');
          const path = resolve(rt.io.cwd ?? process.cwd(), file);
          await writeFile(path, taken);
          const size = Buffer.byteLength(taken);
          out.result({ session_id: s.info.id, url, path, bytes: size }, () =>
            out.line(`${out.paint.green('saved')} ${path} (${bytes(size)})`),
          );
        });
      }),
    );
  }
}
