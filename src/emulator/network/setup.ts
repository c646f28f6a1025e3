/**
 * What `startEmulator()` sets up for the network between sessions and the world: the isolation
 * in effect (with its one fallback), the emulator's internet, its CA and the TLS of its server.
 */
import { type Isolation, probeSandbox } from '../runtime/sandbox.js';
import { createExitTls } from './exit-proxy.js';
import { Internet } from './internet.js';
import { type SandboxNetwork, sandboxNetwork } from './sandbox-network.js';
import { createCa, type EmulatorCa, newKey, spkiHash } from './tls.js';

export interface EmulatorNetwork {
  /** The isolation sessions actually get (a fallback may have made it `'none'`). */
  isolation: Isolation;
  internet: Internet;
  /** Set when sessions run sandboxed. */
  sandbox: SandboxNetwork | undefined;
  /** Key and certificate of the emulator's own https/wss server, when `tls` is on. */
  serverTls: { key: string; cert: string } | undefined;
  /** The CA's PEM when the emulator made the server's certificate. */
  ca: string | undefined;
}

export interface NetworkRequest {
  isolation: Isolation;
  internet: Record<string, string>;
  tls: false | true | { cert: string; key: string };
  /** Host the server binds: named in its certificate. */
  host: string;
}

/** What is not faithful when sessions fall back to `'none'`: the one warning says it. */
export const FALLBACK_CONSEQUENCE =
  "sessions run with isolation 'none', which is NOT faithful: their browser reaches this machine's loopback, its other addresses and its files, which no remote browser can";

/** The probe runs once per process: every emulator of a test run shares its answer. */
let probe: ReturnType<typeof probeSandbox> | undefined;

export async function prepareNetwork(
  request: NetworkRequest,
  warn: (message: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  /** Whether a sandbox can be made here; default: try bwrap (once per process). */
  sandboxProbe: typeof probeSandbox = () => {
    probe ??= probeSandbox();
    return probe;
  },
): Promise<EmulatorNetwork> {
  const internet = new Internet();
  for (const [host, target] of Object.entries(request.internet)) internet.publish(host, target);
  // One CA per emulator, made when first needed (https to a published host, or tls: true).
  let ca: Promise<EmulatorCa> | undefined;
  const authority = () => {
    ca ??= createCa();
    return ca;
  };

  let isolation = request.isolation;
  let sandbox: SandboxNetwork | undefined;
  if (isolation === 'remote') {
    const found = await sandboxProbe();
    if ('bwrap' in found) {
      const leafKey = await newKey();
      sandbox = sandboxNetwork({
        bwrap: found.bwrap,
        internet,
        exitTls: createExitTls(leafKey, authority),
        exitSpki: spkiHash(leafKey.publicKey),
      });
    } else if (env.CI === 'true') {
      throw new Error(
        `isolation 'remote' is not available: ${found.reason}. With CI=true the emulator does not fall back to 'none' (the suite must not test the shared machine by accident); install bubblewrap, or pass isolation: 'none' where a test needs this machine`,
      );
    } else {
      warn(`isolation 'remote' is not available (${found.reason}): ${FALLBACK_CONSEQUENCE}`);
      isolation = 'none';
    }
  }

  let serverTls: EmulatorNetwork['serverTls'];
  let caPem: string | undefined;
  if (request.tls === true) {
    const [authorityMade, key] = await Promise.all([authority(), newKey()]);
    const names = ['localhost', '127.0.0.1', '::1'];
    if (!names.includes(request.host)) names.push(request.host);
    serverTls = { key: key.key, cert: await authorityMade.issue(names, key) };
    caPem = authorityMade.cert;
  } else if (request.tls) {
    serverTls = request.tls;
  }
  return { isolation, internet, sandbox, serverTls, ca: caPem };
}
