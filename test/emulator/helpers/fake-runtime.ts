/**
 * A stand-in for the Chromium runtime, for unit tests of the control plane (routes, limits,
 * timers) that must run without a browser. Chromium itself is covered by the *.e2e tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  BrowserRuntime,
  EndedBrowser,
  LaunchSpec,
  PageActions,
  RecordingFile,
  RunningBrowser,
} from '../../../src/emulator/runtime/index.js';
import type { EmulatorParts } from '../../../src/emulator/start.js';

export interface FakeBrowser extends RunningBrowser {
  spec: LaunchSpec;
  alive: boolean;
  /** Simulates Chromium dying on its own. */
  crash(): void;
}

export interface FakeRuntimeControl {
  launched: FakeBrowser[];
  /** What every page action does; replace to make actions fail. */
  actions: PageActions;
  /** Bytes of the recording each encode writes (none when undefined). */
  recordingBytes: Buffer | undefined;
  recordingsAvailable: boolean;
  /** Makes the next launch reject. */
  failNextLaunch: boolean;
  /**
   * How long each launch takes, in ms (default 25): like Chromium's, launches overlap, so what
   * the control plane does while one is in flight (the limit check) is exercised.
   */
  launchDelayMs: number;
  /**
   * Runs at the start of each recording's encode (the first time it is asked for, after the
   * browser is gone); the encode ends when it resolves. Hold it to see what the control plane
   * does while a recording is encoding.
   */
  encode: (sessionId: string) => Promise<void>;
  /** Launches begun (counted before the launch delay), to start a create while another launches. */
  launchesStarted: number;
  /** Where each recording is written, as `<recordingDir>/<session id>.webm`. */
  recordingDir: string;
  /** Every debugger address opened (`GET /sessions/{id}/connection`), and whether it was closed. */
  debuggerAddresses: { sessionId: string; closed: boolean }[];
}

export function okActions(): PageActions {
  return {
    navigate: async () => {},
    content: async () => '<html><body>fake</body></html>',
    screenshot: async () => Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    executeCode: async (code) => ({ ran: code }),
    pdf: async () => Buffer.from('%PDF-1.4'),
    click: async () => {},
    type: async () => {},
    scroll: async () => {},
  };
}

export function fakeParts(): EmulatorParts & { control: FakeRuntimeControl } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-runtime-'));
  const control: FakeRuntimeControl = {
    launched: [],
    actions: okActions(),
    recordingBytes: Buffer.alloc(4096, 7),
    recordingsAvailable: true,
    failNextLaunch: false,
    launchDelayMs: 25,
    encode: async () => {},
    launchesStarted: 0,
    recordingDir: dir,
    debuggerAddresses: [],
  };
  let nextPid = 100_000;
  const runtime: BrowserRuntime = {
    get recordingsAvailable() {
      return control.recordingsAvailable;
    },
    get recordingsOffReason() {
      return control.recordingsAvailable ? undefined : 'ffmpeg not found (fake)';
    },
    chromiumPath: '/fake/chromium',
    async launch(spec) {
      control.launchesStarted++;
      await new Promise((resolve) => setTimeout(resolve, control.launchDelayMs));
      if (control.failNextLaunch) {
        control.failNextLaunch = false;
        throw new Error('fake launch failure');
      }
      let ending: Promise<EndedBrowser> | undefined;
      let markGone!: () => void;
      const gone = new Promise<void>((resolve) => {
        markGone = resolve;
      });
      const encode = async (): Promise<RecordingFile | undefined> => {
        if (!spec.record || !control.recordingBytes) return undefined;
        const bytes = control.recordingBytes;
        await control.encode(spec.sessionId);
        const path = join(dir, `${spec.sessionId}.webm`);
        writeFileSync(path, bytes);
        return { path, contentType: 'video/webm', durationSeconds: 2.5, sizeBytes: bytes.length };
      };
      // Like the real runtime's: the first of recording() and discard() decides.
      let outcome: Promise<RecordingFile | undefined> | undefined;
      const settle = (asked: boolean) =>
        (outcome ??= asked ? encode() : Promise.resolve(undefined));
      const ended: EndedBrowser = {
        recording: () => settle(true),
        discard: () => settle(false).then(() => {}),
      };
      const browser: FakeBrowser = {
        spec,
        alive: true,
        sessionId: spec.sessionId,
        pid: nextPid++,
        chromiumAddress: { host: '127.0.0.1', port: 9 },
        browserWsPath: `/devtools/browser/${spec.sessionId}`,
        get actions() {
          return control.actions;
        },
        pages: async () => [{ id: 'p1', title: 'Fake', type: 'page', url: 'about:blank' }],
        onFrame: () => () => {},
        lastFrame: () => undefined,
        end() {
          browser.alive = false;
          markGone();
          ending ??= Promise.resolve(ended);
          return ending;
        },
        ended: gone,
        hasEnded: () => !browser.alive,
        stop: () => browser.end().then((e) => e.recording()),
        crash() {
          browser.alive = false;
          markGone();
          spec.onExit?.('its process was killed (fake runtime)');
        },
      };
      control.launched.push(browser);
      return browser;
    },
    liveProcessCount: () => control.launched.filter((b) => b.alive).length,
    async shutdown() {
      for (const browser of control.launched) browser.alive = false;
      // The recordings it wrote live here: like the real runtime's work dir, gone at shutdown.
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return {
    control,
    runtime,
    createProxy: ({ publicOrigin }) => ({
      handleUpgrade: () => false,
      handleHttp: () => false,
      cdpUrl: (id, token) => `${publicOrigin().replace('http', 'ws')}/cdp/${id}?token=${token}`,
      openDebuggerAddress: async (sessionId) => {
        const opened = { sessionId, closed: false };
        control.debuggerAddresses.push(opened);
        return {
          address: '127.0.0.1:1',
          cutClients: () => 0,
          close: async () => {
            opened.closed = true;
          },
        };
      },
    }),
    createLiveView: () => ({
      handleHttp: () => false,
      url: (origin, id, token) => `${origin}/live/${id}?token=${token}`,
    }),
  };
}
