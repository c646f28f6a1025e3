/**
 * `remote-browser run -- <command...>`: a session for the length of one command. The child gets
 * REMOTE_BROWSER_CDP_URL, REMOTE_BROWSER_SESSION_ID and REMOTE_BROWSER_LIVE_VIEW_URL; the
 * session ends when it exits or is interrupted, and its exit code is passed through.
 */
import type { Command } from 'commander';
import { runChild } from '../child.js';
import { usageError } from '../errors.js';
import { act, type Runtime } from '../kit.js';
import { targetingOf, withTargeting } from '../targeting.js';
import { withThrowawaySession } from '../throwaway-session.js';

export function register(program: Command, rt: Runtime): void {
  withTargeting(
    program
      .command('run')
      .description(
        'run a command with a fresh session (REMOTE_BROWSER_CDP_URL exported); the session ends when it exits',
      )
      .argument('<command...>', 'the command and its arguments, after --')
      .usage('[targeting flags] -- <command...>'),
  ).action(
    act(rt, async (out, [command], opts) => {
      const argv = command as string[];
      if (argv.length === 0) throw usageError('missing the command to run after --');
      return withThrowawaySession(out, targetingOf(opts), 'run', (s) =>
        runChild({
          command: argv,
          cwd: rt.io.cwd,
          env: {
            ...rt.io.env,
            REMOTE_BROWSER_CDP_URL: s.cdpUrl,
            REMOTE_BROWSER_SESSION_ID: s.info.id,
            REMOTE_BROWSER_LIVE_VIEW_URL: s.info.liveViewUrl,
          },
          onStarted: (forward) => s.onInterrupt(forward),
        }),
      );
    }),
  );
}
