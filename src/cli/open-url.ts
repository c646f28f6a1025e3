/**
 * Opens a URL the service sent (a live view) in the user's browser, without any shell on any
 * platform: the URL is parsed as an http(s) URL with the WHATWG parser and its re-serialised
 * `href` is passed as one argument of an argument array. On Windows that is
 * `rundll32.exe url.dll,FileProtocolHandler <href>` (what `cmd /c start` would do, minus cmd's
 * parsing of `&`, `|` and `^`); `href` holds no space or quote (the parser percent-encodes
 * them), so Node's Windows argument quoting leaves it as it is.
 */
import type { spawn as spawnType } from 'node:child_process';
import { CliError } from './errors.js';

export interface OpenCommand {
  command: string;
  args: string[];
}

/** The launcher and its arguments for `platform`, or a CliError when `url` is not http(s). */
export function openCommand(url: string, platform: NodeJS.Platform): OpenCommand {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw notOpenable('it is not a URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw notOpenable(`only http and https URLs are opened, not ${parsed.protocol}`);
  }
  const href = parsed.href;
  if (platform === 'win32') {
    return { command: 'rundll32.exe', args: ['url.dll,FileProtocolHandler', href] };
  }
  if (platform === 'darwin') return { command: 'open', args: [href] };
  return { command: 'xdg-open', args: [href] };
}

function notOpenable(why: string): CliError {
  return new CliError(`the live view URL cannot be opened: ${why}`, {
    code: 'invalid_url',
    hint: 'open the printed URL yourself if you trust it',
  });
}

/**
 * Starts the platform's launcher for `url` detached (no shell: `spawn` with an argument array)
 * and resolves once it started. `spawn` and `platform` default to Node's and this process's.
 */
export async function openInBrowser(
  url: string,
  platform: NodeJS.Platform = process.platform,
  spawn?: typeof spawnType,
): Promise<void> {
  const { command, args } = openCommand(url, platform);
  const run = spawn ?? (await import('node:child_process')).spawn;
  await new Promise<void>((resolve, reject) => {
    const child = run(command, args, {
      stdio: 'ignore',
      detached: true,
      shell: false,
      windowsHide: true,
    });
    child.once('error', () =>
      reject(new CliError(`could not run ${command}`, { hint: 'open the printed URL yourself' })),
    );
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
