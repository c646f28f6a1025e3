/**
 * The emulator's HTTP server: one origin for the browser service, the account service (another
 * route module), the CDP proxy, the live view, recording files and the admin API. Every
 * response carries `X-Emulator-Version`; every error has the shape of the service it is under
 * (the browser service's flat `{ error }` unless a route module words its own).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { redact } from '../../http/index.js';
import { VERSION } from '../../version.js';
import type { Fault, FaultRegistry } from './faults.js';
import { errorReply, HttpError } from './http-error.js';
import {
  foreignRequest,
  type Listener,
  MALFORMED_TARGET,
  nonJsonBody,
  parseTarget,
  type Refusal,
} from './own-origin.js';
import { refuseUpgrade } from './raw-http.js';
import { type Reply, type Router, sendReply as send } from './router.js';

/** What the server needs besides its router: requests outside the routes, faults, logging. */
export interface ServerDeps {
  faults: FaultRegistry;
  /** Logs one line, redacted. */
  log(level: 'info' | 'warn' | 'error', message: string): void;
  /** `http://host:port` once listening. */
  origin(): string;
  /** The host the server is bound to (`127.0.0.1` by default): a `Host` it also answers to. */
  boundHost: string;
  /** The CDP proxy's and live view's HTTP requests; false when the path is not theirs. */
  handleHttp(req: IncomingMessage, res: ServerResponse): boolean;
  /** Websocket upgrades (the CDP proxy); false when the path is not theirs. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
}

/** Request bodies are small JSON documents; anything larger is refused. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

const NO_BODY = Symbol('no body');

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'Request body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // The parser's message can quote the body (which may hold a password): never echo it.
    throw new HttpError(400, 'Malformed JSON in the request body');
  }
}

function faultReply(fault: Fault): Reply {
  return { status: fault.status as number, body: fault.body ?? { error: 'Injected fault' } };
}

/** The public origin's port (a latency front's when a network is modelled). */
function listenerOf(ctx: ServerDeps): Listener {
  const origin = new URL(ctx.origin());
  return { boundHost: ctx.boundHost, ports: [Number(origin.port || 80)] };
}

export function createEmulatorServer(ctx: ServerDeps, router: Router): Server {
  /**
   * The one way an error becomes an answer: in the wording of the service `path` is under. An
   * error that is not an `HttpError` is the emulator's own bug: logged, answered as a 500.
   */
  const errorAnswer = (error: unknown, path: string, what: string): Reply => {
    if (error instanceof HttpError) return errorReply(error, router.errorWordingFor(path));
    ctx.log('error', `${what} failed: ${error instanceof Error ? error.stack : String(error)}`);
    return errorReply(new HttpError(500, 'Internal emulator error'), router.errorWordingFor(path));
  };
  const refusalReply = ({ status, message }: Refusal, path: string): Reply =>
    errorAnswer(new HttpError(status, message), path, '');

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('x-emulator-version', VERSION);
    const method = req.method ?? 'GET';
    const url = parseTarget(req.url);
    if (!url) return send(res, refusalReply(MALFORMED_TARGET, '/'));
    const path = url.pathname;
    const what = `${method} ${path}`;
    const refused = foreignRequest(req, listenerOf(ctx)) ?? nonJsonBody(req);
    if (refused) {
      ctx.log('warn', redact(`${what} refused (${refused.status}): ${refused.message}`));
      // The body is not read: the connection closes after the answer.
      return send(res, { ...refusalReply(refused, path), headers: { connection: 'close' } });
    }

    if (ctx.handleHttp(req, res)) return;

    const fault = router.isFaultFree(path) ? undefined : ctx.faults.take(method, path);
    if (fault && !fault.afterHandling) {
      if (fault.delayMs) await sleep(fault.delayMs);
      if (fault.dropConnection) return void req.socket.destroy();
      if (fault.status !== undefined) return send(res, faultReply(fault));
    }

    let reply: Reply | undefined | typeof NO_BODY;
    try {
      const body = await readJson(req);
      const match = router.match(method, path);
      if (!match) throw new HttpError(404, `No route for ${what}`);
      reply = await match.handler({
        req,
        res,
        method,
        path,
        params: match.params,
        query: url.searchParams,
        body,
        origin: ctx.origin(),
      });
      if (reply === undefined) reply = NO_BODY;
    } catch (error) {
      reply = errorAnswer(error, path, what);
    }

    if (fault?.afterHandling) {
      if (fault.delayMs) await sleep(fault.delayMs);
      if (fault.dropConnection) return void req.socket.destroy();
      if (fault.status !== undefined && reply !== NO_BODY) reply = faultReply(fault);
    }
    if (reply !== NO_BODY) send(res, reply);
    ctx.log('info', redact(`${what} → ${res.statusCode}`));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      send(
        res,
        errorAnswer(error, parseTarget(req.url)?.pathname ?? '/', `${req.method} ${req.url}`),
      );
    });
  });
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    // A client that resets mid-handshake must not become an uncaught 'error'.
    socket.on('error', () => {});
    safely(socket, () => upgrade(req, socket, head));
  });

  /** No upgrade may take the process down: whatever fails, its socket gets a 400. */
  const safely = (socket: Duplex, run: () => void) => {
    try {
      run();
    } catch (error) {
      ctx.log('error', `websocket upgrade failed: ${(error as Error)?.stack ?? String(error)}`);
      refuseUpgrade(socket, 400, 'Bad request');
    }
  };

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = parseTarget(req.url);
    const refused = url ? foreignRequest(req, listenerOf(ctx)) : MALFORMED_TARGET;
    if (refused) {
      ctx.log('warn', redact(`upgrade refused (${refused.status}): ${refused.message}`));
      refuseUpgrade(socket, refused.status, refused.message);
      return;
    }
    const proceed = () => {
      if (ctx.handleUpgrade(req, socket, head)) return;
      refuseUpgrade(socket, 404, 'Not found');
    };
    // Faults apply to websocket upgrades too (e.g. `{ path: '/cdp/*', status: 502 }`), so a
    // client's handling of a refused or dropped CDP connect can be tested.
    const pathname = (url as URL).pathname;
    const fault = ctx.faults.take('GET', pathname);
    if (!fault) return proceed();
    const apply = () => {
      if (fault.afterHandling) {
        // A 101 cannot be taken back: the websocket opens and the client's first frame reaches
        // Chromium (the work is done), then the connection is lost before any answer.
        proceed();
        socket.once('data', () => setTimeout(() => socket.destroy(), fault.delayMs ?? 0));
        return;
      }
      if (fault.dropConnection) {
        socket.destroy();
      } else if (fault.status) {
        refuseUpgrade(socket, fault.status, 'Injected fault', fault.body);
      } else {
        proceed();
      }
    };
    if (fault.delayMs && !fault.afterHandling)
      setTimeout(() => safely(socket, apply), fault.delayMs);
    else apply();
  };
  return server;
}
