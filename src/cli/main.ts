/**
 * `remote-browser <command>`: commander parses (subcommand help, `help <cmd>`, unknown flags,
 * extra arguments, "did you mean"); one file per command registers itself and loads its heavy
 * parts (clients, zod schemas, the emulator) only when it runs. Exit codes: 0 ok, 1 failure,
 * 2 wrong invocation.
 */

import { VERSION } from '../version.js';
import { Command, CommanderError } from './commander.js';
import * as ask from './commands/ask.js';
import * as balance from './commands/balance.js';
import * as doctor from './commands/doctor.js';
import * as emulator from './commands/emulator.js';
import * as locations from './commands/locations.js';
import * as notifications from './commands/notifications.js';
import * as pageActions from './commands/page-actions.js';
import * as profiles from './commands/profiles.js';
import * as proxy from './commands/proxy.js';
import * as recordings from './commands/recordings.js';
import * as results from './commands/results.js';
import * as run from './commands/run.js';
import * as sessions from './commands/sessions.js';
import * as usage from './commands/usage.js';
import * as validate from './commands/validate.js';
import * as webhooks from './commands/webhooks.js';
import { describeError } from './errors.js';
import { type CliIo, processIo } from './io.js';
import type { Runtime } from './kit.js';
import { Output } from './output.js';
import { colorEnabled, painter } from './style.js';

export type { CliIo } from './io.js';

const ENV_HELP = `
Configuration (environment):
  REMOTE_BROWSER_URL             browser service origin
  REMOTE_BROWSER_TOKEN           browser service token (dashboard, browser page; valid 7 days)
  REMOTE_BROWSER_PROXY_PASSWORD  proxy password (needed to create sessions)
  REMOTE_BROWSER_ACCOUNT_URL     account service origin
  REMOTE_BROWSER_API_KEY         account API key (dashboard, Profile section)

Exit codes: 0 ok, 1 failure, 2 wrong invocation. NO_COLOR / FORCE_COLOR are honoured.`;

function program(rt: Runtime): Command {
  const { io } = rt;
  const paint = painter(colorEnabled(io.isTTY, io.env));
  const strip = (text: string) => text.replace(/\n$/, '');
  const root = new Command('remote-browser')
    .description('Remote, proxied Chromium sessions that feel local; both services from the shell')
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout(strip(text)),
      writeErr: (text) => io.stderr(strip(text)),
      // Errors are printed by main(), one line with a hint (or JSON).
      outputError: () => {},
      getOutHelpWidth: () => (io.isTTY ? Math.min(io.columns ?? 100, 100) : 100),
      getErrHelpWidth: () => 100,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .configureHelp({
      sortSubcommands: false,
      styleTitle: (text) => paint.bold(text),
      styleCommandText: (text) => paint.cyan(text),
    })
    .addHelpText('after', ENV_HELP);
  for (const register of [
    emulator.register,
    doctor.register,
    sessions.register,
    usage.register,
    recordings.register,
    profiles.register,
    locations.register,
    proxy.register,
    validate.register,
    pageActions.register,
    run.register,
    balance.register,
    ask.register,
    results.register,
    notifications.register,
    webhooks.register,
  ]) {
    register(root, rt);
  }
  return root;
}

/** Runs the CLI; resolves with the exit code (0 success, 1 failure, 2 usage). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const rt: Runtime = {
    io,
    code: 0,
    mode: { json: argv.includes('--json'), showSecrets: argv.includes('--show-secrets') },
  };
  const root = program(rt);
  if (argv.length === 0) {
    root.outputHelp({ error: true });
    return 2;
  }
  try {
    await root.parseAsync(argv, { from: 'user' });
    return rt.code;
  } catch (error) {
    if (error instanceof CommanderError) return commanderExit(error, rt, root, argv);
    const failure = describeError(error);
    if (failure.code === 'usage' && !failure.hint) failure.hint = helpHint(root, argv);
    return report(rt, failure);
  }
}

function commanderExit(error: CommanderError, rt: Runtime, root: Command, argv: string[]): number {
  if (
    error.code === 'commander.helpDisplayed' ||
    error.code === 'commander.version' ||
    error.exitCode === 0
  ) {
    return 0;
  }
  // A command group without its subcommand: commander printed the group's help on stderr.
  if (error.code === 'commander.help') return 2;
  const [first, ...rest] = error.message.replace(/^error: /, '').split('\n');
  const suggestion = rest.join(' ').trim();
  return report(rt, {
    code: 'usage',
    message: `${first}${suggestion ? ` ${suggestion.replace(/^\(Did/, '(did')}` : ''}`,
    hint: helpHint(root, argv),
    exitCode: 2,
  });
}

/** `see \`remote-browser sessions --help\`` for the command that was meant, if it exists. */
function helpHint(root: Command, argv: string[]): string {
  const known = root.commands.find((c) => c.name() === argv[0]);
  return `see \`remote-browser ${known ? `${known.name()} ` : ''}--help\``;
}

function report(rt: Runtime, failure: ReturnType<typeof describeError>): number {
  // Errors are redacted even under --show-secrets: they end up in CI logs.
  const out = new Output(rt.io, { json: rt.mode.json, showSecrets: false });
  if (rt.mode.json) {
    out.json({
      error: {
        code: failure.code,
        message: failure.message,
        ...(failure.hint ? { hint: failure.hint } : {}),
        ...(failure.status ? { status: failure.status } : {}),
      },
    });
  } else {
    const p = out.errPaint;
    out.note(
      `${p.red('error:')} ${failure.message}${failure.hint ? ` ${p.dim(`(hint: ${failure.hint})`)}` : ''}`,
    );
  }
  return failure.exitCode;
}
