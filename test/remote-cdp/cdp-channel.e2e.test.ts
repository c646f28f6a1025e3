/**
 * The dispatch guard on a real remote browser: a web page cannot end the user's process. The
 * issue's crash case (a binding of the WebSocket bridge left in a document whose navigation to an
 * exposed host never committed, called with 'null') runs in a child process, as a user's script,
 * for Playwright and Puppeteer: the child must survive and exit 0. The binding now lives only in
 * the bridge's isolated world (websocket-page-script.ts), so the page finds none to call in its
 * own; the relay a page can reach is fed malformed messages in websocket-bridge.e2e.test.ts.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';

const child = new URL('../fixtures/binding-crash-child.ts', import.meta.url).pathname;
let emu: EmulatorHandle;
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/204') return void res.writeHead(204).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>page</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  emu = await startEmulator({
    ffmpegPath: false,
    isolation: 'remote',
    internet: { 'site.test': origin },
  });
});

afterAll(async () => {
  await emu?.close();
  server?.closeAllConnections();
  server?.close();
});

function runChild(library: string): Promise<{ code: number | null; out: string }> {
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      child,
      library,
      emu.url,
      emu.token,
      emu.proxyPassword,
      'http://site.test/',
      `${origin}/204`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  proc.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, out })));
}

describe('a web page cannot end the user’s process', () => {
  for (const library of ['playwright', 'puppeteer']) {
    it(`${library}: a page calling the bridge's binding with 'null' after a cancelled navigation`, async () => {
      const { code, out } = await runChild(library);
      // On the old code the page found the binding ('called') and the child died of a TypeError.
      expect(out).toContain('no binding');
      expect(out).toContain('alive');
      expect(out).not.toMatch(/TypeError/);
      expect(code).toBe(0);
    }, 60_000);
  }
});
