/**
 * The session's single internal screencast: JPEG frames of the current page, acknowledged as
 * they come, fanned out to live viewers and the recorder. Headless Chromium only sends a frame
 * when the page changes, so an idle page costs nothing.
 */
import type { Protocol } from 'devtools-protocol';
import type { CdpConnection } from '../../remote-cdp/cdp-connection.js';
import type { AttachedPage, CurrentPage } from './current-page.js';

const SCREENCAST_PARAMS: Protocol.Page.StartScreencastRequest = {
  format: 'jpeg',
  quality: 60,
  maxWidth: 1280,
  maxHeight: 720,
};

export class Screencast {
  #listeners = new Set<(jpeg: Buffer) => void>();
  #last: Buffer | undefined;
  #sessionId: string | undefined;
  #stopped = false;
  #unsubscribe: Array<() => void> = [];

  constructor(
    private readonly cdp: CdpConnection,
    currentPage: CurrentPage,
    /** Sees every frame with its arrival time, before viewers (the recorder). */
    private readonly onFrameReceived: (jpeg: Buffer, at: number) => void = () => {},
  ) {
    this.#unsubscribe.push(
      currentPage.onChange((page) => this.#follow(page)),
      cdp.on('Page.screencastFrame', (frame, sessionId) => this.#onFrame(frame, sessionId)),
    );
    const page = currentPage.peek();
    if (page) this.#follow(page);
  }

  onFrame(listener: (jpeg: Buffer) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  lastFrame(): Buffer | undefined {
    return this.#last;
  }

  stop(): void {
    this.#stopped = true;
    for (const off of this.#unsubscribe) off();
    this.#listeners.clear();
  }

  #follow(page: AttachedPage | undefined): void {
    if (this.#stopped) return;
    this.#sessionId = page?.sessionId;
    if (!page) return;
    // The old page's screencast ends with its target; nothing to stop there.
    this.cdp
      .call('Page.startScreencast', SCREENCAST_PARAMS, { sessionId: page.sessionId })
      .catch(() => {
        // The page closed before the screencast started: the next current page gets one.
      });
  }

  /** `frame.sessionId` is the frame number to acknowledge; `cdpSessionId` the page's session. */
  #onFrame(frame: Protocol.Page.ScreencastFrameEvent, cdpSessionId: string | undefined): void {
    if (!cdpSessionId) return;
    // Unacknowledged frames stall the screencast, so ack even frames we no longer want.
    this.cdp
      .call('Page.screencastFrameAck', { sessionId: frame.sessionId }, { sessionId: cdpSessionId })
      .catch(() => {});
    if (this.#stopped || cdpSessionId !== this.#sessionId) return;
    const jpeg = Buffer.from(frame.data, 'base64');
    this.#last = jpeg;
    this.onFrameReceived(jpeg, Date.now());
    for (const listener of [...this.#listeners]) {
      try {
        listener(jpeg);
      } catch {
        // A broken viewer must not stop the others or the recording.
      }
    }
  }
}
