/**
 * The emulator's internet: the hosts a session's exit can reach, each published by a test as a
 * name (`shop.test`) and the local origin that serves it (`http://127.0.0.1:4000`). Everything
 * else is unknown to the exit, as an unregistered name is unknown to DNS.
 */

/** The exit's own host: it answers with the session's exit identity (exit-identity.ts). */
export const EXIT_HOST = 'exit.test';

/** One problem with a site to publish: `field` is the host (or `host`/`target`), `rule` says what is wrong. */
export interface SiteIssue {
  field: string;
  message: string;
}

const HOSTNAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Why this host and target cannot be published, or undefined when they can. */
export function siteIssue(host: unknown, target: unknown): SiteIssue | undefined {
  if (typeof host !== 'string' || !HOSTNAME.test(host)) {
    return {
      field: 'host',
      message: `must be a lower-case host name such as shop.test, without scheme or port (got ${JSON.stringify(host)})`,
    };
  }
  if (host === EXIT_HOST) {
    return { field: host, message: `${EXIT_HOST} is the exit's own host and cannot be published` };
  }
  const url = typeof target === 'string' && URL.canParse(target) ? new URL(target) : undefined;
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.pathname !== '/' ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    return {
      field: host,
      message: `target must be an http:// or https:// origin such as http://127.0.0.1:4000, without path or credentials (got ${JSON.stringify(target)})`,
    };
  }
  return undefined;
}

export class Internet {
  readonly #sites = new Map<string, URL>();

  /** Publishes `host` (every port of it) as served by `target`; a second publish replaces the first. */
  publish(host: string, target: string): void {
    const issue = siteIssue(host, target);
    if (issue) throw new Error(`cannot publish ${issue.field}: ${issue.message}`);
    this.#sites.set(host, new URL(target));
  }

  /** The origin serving `host`, or undefined when the host is not on this internet. */
  lookup(host: string): URL | undefined {
    return this.#sites.get(host.toLowerCase().replace(/\.$/, ''));
  }

  /** Every published host and its target, for the admin state. */
  list(): Record<string, string> {
    return Object.fromEntries([...this.#sites].map(([host, url]) => [host, url.origin]));
  }
}
