#!/usr/bin/env node
// The main job, end to end and offline: start the embedded emulator (a real Chromium per
// session), launch a remote browser through it, screenshot a local page, close (which deletes
// the session), download the recording, and say where everything is.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { redact } from 'remote-browser';
import { startEmulator } from 'remote-browser/emulator';
import { defaultPage, launchRemote, recordingOf, sessionOf } from 'remote-browser/playwright';

const out = resolve('demo-output');
mkdirSync(out, { recursive: true });
const step = (text) => console.log(`• ${text}`);

const site = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(`<!doctype html><title>remote-browser demo</title>
<style>html{min-height:100%;background:linear-gradient(#e0f2fe,#fff)}body{font:24px system-ui;padding:40px}</style>
<h1>Hello from a remote browser</h1><p id="t"></p>
<script>setInterval(() => document.getElementById('t').textContent = new Date().toISOString(), 100)</script>`);
});
await new Promise((r) => site.listen(0, '127.0.0.1', r));
const pageUrl = `http://127.0.0.1:${site.address().port}/`;

const started = Date.now();
const emulator = await startEmulator();
step(`emulator on ${emulator.url} (browser service + account service, real Chromium per session)`);

try {
  const t0 = Date.now();
  const browser = await launchRemote({
    baseUrl: emulator.url,
    token: emulator.token,
    proxyPassword: emulator.proxyPassword,
    country: 'us',
    recording: { dir: out },
  });
  const session = sessionOf(browser);
  step(
    `session ${session.id} created and connected in ${Date.now() - t0} ms (exit: ${session.config.country ?? 'any'})`,
  );
  // Its ?token= is a capability, left out as in every log line of the library.
  step(`live view: ${redact(session.liveViewUrl)}`);

  const page = defaultPage(browser); // the session's own tab: the one the recording shows
  await page.goto(pageUrl);
  await page.waitForTimeout(1500);
  const shot = resolve(out, 'screenshot.png');
  writeFileSync(shot, await page.screenshot());
  step(`navigated to ${pageUrl} ("${await page.title()}"), screenshot: ${shot}`);

  await browser.close();
  const state = await emulator.admin.state();
  step(
    `closed: the session was deleted (${state.runningSessions} running, ${state.chromiumProcesses} Chromium processes)`,
  );

  const { files } = await recordingOf(browser);
  for (const file of files) step(`recording downloaded: ${file}`);
} finally {
  await emulator.close();
  site.close();
}
console.log(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s. Output in ${out}/`);
