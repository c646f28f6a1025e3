/**
 * `remote-browser <command>`: dispatches to one file per command. Every line printed goes
 * through redact(); failures exit non-zero with a one-line reason.
 */
import { parseArgs } from 'node:util';
import { redact } from '../http/redact.js';
import { VERSION } from '../version.js';
import { type CliIo, type Command, type ParsedArgs, UsageError } from './command.js';
import { emulatorCommand } from './commands/emulator.js';
import { profilesCommand } from './commands/profiles.js';
import { sessionsCommand } from './commands/sessions.js';
import { validateCommand } from './commands/validate.js';

export const commands: Command[] = [
  emulatorCommand,
  sessionsCommand,
  profilesCommand,
  validateCommand,
];

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(`${redact(text)}\n`),
    stderr: (text) => process.stderr.write(`${redact(text)}\n`),
    isTTY: Boolean(process.stdout.isTTY),
    env: process.env,
  };
}

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `remote-browser ${VERSION}: remote, proxied Chromium sessions that feel local`,
    '',
    'Usage: remote-browser <command> [flags]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `remote-browser <command> --help` for its flags. Configuration: REMOTE_BROWSER_URL,',
    'REMOTE_BROWSER_TOKEN, REMOTE_BROWSER_PROXY_PASSWORD, REMOTE_BROWSER_ACCOUNT_URL, REMOTE_BROWSER_API_KEY.',
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const flags = Object.entries(command.flags).map(([name, spec]) => {
    const short = spec.short ? `-${spec.short}, ` : '    ';
    const value = spec.type === 'string' ? ' <value>' : '';
    const def = spec.default !== undefined ? ` (default: ${spec.default})` : '';
    return `  ${short}--${name}${value}\n        ${spec.description}${def}`;
  });
  return [
    command.summary,
    '',
    `Usage: ${command.usage}`,
    '',
    'Flags:',
    ...flags,
    '  -h, --help\n        Show this help',
  ].join('\n');
}

function parse(command: Command, argv: string[]): ParsedArgs & { help: boolean } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, spec] of Object.entries(command.flags)) {
    options[name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}) };
  }
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options,
      allowPositionals: true,
      strict: true,
    });
    const flags: ParsedArgs['flags'] = {};
    for (const [name, spec] of Object.entries(command.flags)) {
      flags[name] = (values[name] as string | boolean | undefined) ?? spec.default;
    }
    return { flags, positionals, help: Boolean(values.help) };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Runs the CLI; resolves with the exit code (0 success, 1 failure, 2 usage). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(help());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(VERSION);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr(
      `remote-browser: unknown command "${name}". Run \`remote-browser --help\` for the list.`,
    );
    return 2;
  }
  try {
    const args = parse(command, rest);
    if (args.help) {
      io.stdout(commandHelp(command));
      return 0;
    }
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`remote-browser ${command.name}: ${error.message}\nUsage: ${command.usage}`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`remote-browser ${command.name}: ${redact(message.split('\n')[0] ?? message)}`);
    return 1;
  }
}
