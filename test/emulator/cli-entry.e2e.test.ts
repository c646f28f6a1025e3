import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runEmulatorForeground } from '../../src/emulator/index.js';

describe('runEmulatorForeground', () => {
  it('prints the env lines to export and stops on a signal', async () => {
    const lines: string[] = [];
    const run = await runEmulatorForeground(
      { ffmpegPath: false },
      { stdout: (line) => lines.push(line) },
      ['SIGUSR2'],
    );
    const exports = Object.fromEntries(
      lines
        .filter((l) => l.startsWith('export '))
        .map((l) => {
          const [, name, value] = /^export (\w+)='(.*)'$/.exec(l) as RegExpExecArray;
          return [name, value];
        }),
    );
    expect(Object.keys(exports)).toEqual([
      'REMOTE_BROWSER_URL',
      'REMOTE_BROWSER_TOKEN',
      'REMOTE_BROWSER_PROXY_PASSWORD',
      'REMOTE_BROWSER_ACCOUNT_URL',
      'REMOTE_BROWSER_API_KEY',
    ]);
    expect(exports.REMOTE_BROWSER_URL).toBe(run.handle.url);
    expect(exports.REMOTE_BROWSER_TOKEN).toBe(run.handle.token);
    expect(lines.some((l) => l.includes('recordings are off'))).toBe(true);
    process.kill(process.pid, 'SIGUSR2');
    await run.closed;
    await expect(fetch(`${run.handle.url}/_emulator/state`)).rejects.toThrow();
  });

  it('with tls prints an https URL and a NODE_EXTRA_CA_CERTS line whose file holds the CA, removed on stop', async () => {
    const lines: string[] = [];
    const run = await runEmulatorForeground(
      { ffmpegPath: false, tls: true },
      { stdout: (line) => lines.push(line) },
      ['SIGUSR2'],
    );
    const caLine = lines.find((l) => l.startsWith('export NODE_EXTRA_CA_CERTS='));
    const caFile = /^export NODE_EXTRA_CA_CERTS='(.*)'$/.exec(caLine ?? '')?.[1] ?? '';
    expect(run.handle.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(readFileSync(caFile, 'utf8')).toBe(run.handle.ca);
    expect(lines).toContain(`export REMOTE_BROWSER_URL='${run.handle.url}'`);
    process.kill(process.pid, 'SIGUSR2');
    await run.closed;
    expect(existsSync(caFile)).toBe(false);
  });

  it('handles Ctrl-C before it prints a line: a user may press it as soon as the lines appear', async () => {
    const before = process.listenerCount('SIGUSR2');
    let atFirstLine: number | undefined;
    const run = await runEmulatorForeground(
      { ffmpegPath: false },
      {
        stdout: () => {
          atFirstLine ??= process.listenerCount('SIGUSR2');
        },
      },
      ['SIGUSR2'],
    );
    expect(atFirstLine).toBe(before + 1);
    process.kill(process.pid, 'SIGUSR2');
    await run.closed;
    expect(process.listenerCount('SIGUSR2')).toBe(before);
  });
});
