/**
 * Who a session's exit is: the address and location that the sites it reaches see, from the
 * session's resolved targeting. The emulator has no real exits, so the IP follows a documented,
 * deterministic scheme in the documentation ranges (RFC 5737), never a real address:
 *
 * - a sticky session: `198.51.100.x`, one address for the whole session;
 * - a rotating session: `203.0.113.x`, a new one for every connection the browser opens to its exit;
 * - a session on a `pin_ip` profile: `192.0.2.x`, the profile's one address for all its sessions.
 *
 * `x` (1 to 254) is derived from a SHA-256 of the account id and the session (or profile) id,
 * and the connection number for rotating sessions.
 */
import { createHash } from 'node:crypto';
import type { ExitIdentity } from '../runtime/types.js';
import type { PinnedLocation, ProfileRecord, SessionRecord } from './model.js';
import { pinFromConfig } from './profile-pin.js';

function hostByte(...parts: string[]): number {
  const digest = createHash('sha256').update(parts.join('\0')).digest();
  return 1 + (digest.readUInt32BE(0) % 254);
}

/**
 * The exit of `session` on its `connection`-th connection (from 0), read afresh at every ask:
 * a `pin_ip` profile pins late.
 */
export function sessionExit(
  session: Pick<SessionRecord, 'accountId' | 'id' | 'config'>,
  profile: Pick<ProfileRecord, 'id' | 'pinIp' | 'pinned'> | undefined,
): (connection: number) => ExitIdentity {
  return (connection) => {
    const { accountId, id, config } = session;
    let ip: string;
    let location: PinnedLocation;
    if (profile?.pinIp) {
      ip = `192.0.2.${hostByte(accountId, profile.id)}`;
      location = profile.pinned ?? pinFromConfig(config);
    } else {
      ip =
        config.session_type === 'rotating'
          ? `203.0.113.${hostByte(accountId, id, String(connection))}`
          : `198.51.100.${hostByte(accountId, id)}`;
      location = pinFromConfig(config);
    }
    return { ip, ...location, session_type: config.session_type };
  };
}
