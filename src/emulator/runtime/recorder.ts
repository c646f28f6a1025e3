/**
 * Session recordings without a real-time encoder: while the session runs, screencast frames are
 * kept on disk with their arrival times (at most one per output frame slot); at stop, after
 * Chromium is gone, one ffmpeg run turns them into a WebM (VP8) whose timeline is the session's
 * own: each frame is held until the next one, the last until the stop time. Ten sessions on two
 * cores could not each afford a live encoder.
 */
import { spawn } from 'node:child_process';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordingFile } from './types.js';

// The screencast's own ceiling: frames are at most this size, so they are never upscaled unless
// a client shrank the viewport. Fixed dimensions keep VP8 from seeing a mid-stream size change.
const WIDTH = 1280;
const HEIGHT = 720;

interface StoredFrame {
  file: string;
  at: number;
}

export class Recorder {
  #frames: StoredFrame[] = [];
  #pending: { jpeg: Buffer; at: number; slot: number } | undefined;
  #writes: Promise<void> = Promise.resolve();
  #writeError: unknown;
  #framesDir: string;
  #ready: Promise<unknown>;

  constructor(
    private readonly sessionDir: string,
    private readonly ffmpegPath: string,
    private readonly fps: number,
    private readonly startedAt: number,
  ) {
    this.#framesDir = join(sessionDir, 'frames');
    this.#ready = mkdir(this.#framesDir, { recursive: true });
  }

  /**
   * Keeps the latest frame of each 1/fps slot: the encoder outputs one frame per slot anyway, and
   * a busy page (animations) would otherwise write dozens of JPEGs a second.
   */
  add(jpeg: Buffer, at: number): void {
    const slot = Math.floor(((at - this.startedAt) * this.fps) / 1000);
    if (this.#pending && this.#pending.slot !== slot) this.#store(this.#pending);
    this.#pending = { jpeg, at, slot };
  }

  /** Writes the frame still held in memory: the session is over, its frames wait on disk. */
  seal(): void {
    if (this.#pending) this.#store(this.#pending);
    this.#pending = undefined;
  }

  /** Encodes everything up to `endedAt` (the stop or crash time) and removes the frames. */
  async finish(endedAt: number): Promise<RecordingFile> {
    this.seal();
    await this.#writes;
    if (this.#writeError) throw this.#writeError;
    const durationSeconds = Math.max((endedAt - this.startedAt) / 1000, 1 / this.fps);
    const output = join(this.sessionDir, 'recording.webm');
    const input =
      this.#frames.length > 0
        ? ['-f', 'concat', '-safe', '0', '-i', await this.#writeConcatList(endedAt)]
        : // No frame at all (the page never painted): a blank video of the session's length, so a
          // recorded session always has its recording.
          [
            '-f',
            'lavfi',
            '-i',
            `color=c=white:s=${WIDTH}x${HEIGHT}:r=${this.fps}:d=${durationSeconds.toFixed(3)}`,
          ];
    await runFfmpeg(this.ffmpegPath, [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      ...input,
      '-vf',
      `scale=${WIDTH}:${HEIGHT}:force_original_aspect_ratio=decrease,` +
        `pad=${WIDTH}:${HEIGHT}:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=${this.fps},format=yuv420p`,
      '-t',
      durationSeconds.toFixed(3),
      '-c:v',
      'libvpx',
      '-deadline',
      'realtime',
      '-cpu-used',
      '8',
      '-b:v',
      '1M',
      '-an',
      output,
    ]);
    await rm(this.#framesDir, { recursive: true, force: true });
    const { size } = await stat(output);
    return {
      path: output,
      contentType: 'video/webm',
      durationSeconds: Math.round(durationSeconds * 100) / 100,
      sizeBytes: size,
    };
  }

  /** Throws away the frames without encoding (the session ended before it started). */
  async discard(): Promise<void> {
    this.#pending = undefined;
    await this.#writes;
    await rm(this.#framesDir, { recursive: true, force: true });
  }

  #store(frame: { jpeg: Buffer; at: number }): void {
    const file = join(this.#framesDir, `${String(this.#frames.length).padStart(6, '0')}.jpg`);
    this.#frames.push({ file, at: frame.at });
    this.#writes = this.#writes
      .then(() => this.#ready)
      .then(() => writeFile(file, frame.jpeg))
      .catch((error) => {
        this.#writeError ??= error;
      });
  }

  /** The concat demuxer's list: each frame lasts until the next; the first covers the start. */
  async #writeConcatList(endedAt: number): Promise<string> {
    const lines = ['ffconcat version 1.0'];
    this.#frames.forEach((frame, i) => {
      const from = i === 0 ? this.startedAt : frame.at;
      const until = this.#frames[i + 1]?.at ?? Math.max(endedAt, frame.at + 1000 / this.fps);
      lines.push(
        `file '${frame.file}'`,
        `duration ${(Math.max(until - from, 1) / 1000).toFixed(3)}`,
      );
    });
    // The demuxer ignores the last entry's duration unless the file is listed once more.
    lines.push(`file '${this.#frames.at(-1)!.file}'`);
    const listPath = join(this.#framesDir, 'frames.txt');
    await writeFile(listPath, `${lines.join('\n')}\n`);
    return listPath;
  }
}

function runFfmpeg(ffmpegPath: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code}: ${stderr.trim()}`)),
    );
  });
}
