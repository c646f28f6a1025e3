/**
 * The ONE validation and resolution of a session request, shared by `POST /sessions` (issues
 * become a 400) and `POST /configurations/validate` (issues are reported with a 200), so a config
 * that validates also creates.
 */
import { randomBytes } from 'node:crypto';
import { FILTER_MODES_FOR_QUALITY_FLAG } from '../../browser-api/schemas/vocabulary.js';
import type { Account, PinnedLocation, ProfileRecord, SessionConfig } from './model.js';
import {
  type Issue,
  issue,
  type Refusal,
  readSessionBody,
  type SessionBody,
} from './targeting-issue.js';
import { resolveLocation } from './targeting-location.js';
import {
  CONNECTION_TYPES,
  defaultOf,
  FILTER_MODES,
  filterTokens,
  type OptionItem,
  PROTOCOLS,
  SESSION_TYPES,
} from './vocabulary.js';

export type { Issue } from './targeting-issue.js';

export interface TargetingContext {
  account: Account;
  /** The account's profile with this id, if any. */
  findProfile(id: string): ProfileRecord | undefined;
  /** Session creation requires `proxy_password`; validate only checks it when sent. */
  requirePassword: boolean;
}

export interface ResolvedRequest {
  config: SessionConfig;
  profile: ProfileRecord | undefined;
  /** Requested limits in minutes; 0 means "the account limit". */
  idleTimeoutMinutes: number;
  maxDurationMinutes: number;
}

export interface Resolution {
  resolved: ResolvedRequest;
  issues: Issue[];
}

const LOCATION_KEYS = ['country', 'region', 'city', 'zip', 'isp'] as const;

type Refused = ReadonlyMap<string, Refusal>;

/** The flag's view of a mode: true for the quality-bearing modes (the client's table). */
const bearsQuality = (mode: string) =>
  (FILTER_MODES_FOR_QUALITY_FLAG.true as readonly string[]).includes(mode);

/**
 * A vocabulary field: its value, else the default; a value the schema refused resolves to
 * nothing (never silently to the default), a value of the wrong type to the default.
 */
function enumValue(
  field: 'protocol' | 'connection_type' | 'session_type' | 'filter_mode',
  value: SessionBody,
  refused: Refused,
  items: readonly OptionItem[],
): string | undefined {
  return refused.get(field) === 'value' ? undefined : (value[field] ?? defaultOf(items));
}

/** `quality_filter_enabled` (deprecated) and `filter_mode` → one mode; none on a conflict. */
function resolveFilterMode(value: SessionBody, refused: Refused): string | undefined {
  if (refused.get('quality_filter_enabled') === 'value') return undefined;
  const mode = enumValue('filter_mode', value, refused, FILTER_MODES);
  const legacy = value.quality_filter_enabled;
  if (legacy === undefined || refused.has('filter_mode') || value.filter_mode !== undefined) {
    return mode;
  }
  return legacy ? 'quality' : 'none';
}

function checkPassword(value: SessionBody, refused: Refused, ctx: TargetingContext): Issue[] {
  const password = value.proxy_password;
  if (password === undefined) {
    if (!ctx.requirePassword || refused.has('proxy_password')) return [];
    return [
      issue(
        'missing_proxy_password',
        'proxy_password',
        'proxy_password is required: a session cannot exist without an active proxy',
        "Send the account's proxy password",
      ),
    ];
  }
  if (password === ctx.account.proxyPassword) return [];
  return [
    issue(
      'invalid_proxy_password',
      'proxy_password',
      "proxy_password does not match the account's proxy password",
      'Copy the proxy password from the dashboard',
    ),
  ];
}

function applyPin(
  location: Partial<Record<string, string>>,
  connectionType: string | undefined,
  value: SessionBody,
  pinned: PinnedLocation,
  issues: Issue[],
): { location: Partial<Record<string, string>>; connectionType: string | undefined } {
  for (const key of [...LOCATION_KEYS, 'connection_type'] as const) {
    const asked = key === 'connection_type' ? value.connection_type : location[key];
    if (asked !== undefined && pinned[key] && asked !== pinned[key]) {
      issues.push(
        issue(
          'conflicts_with_pinned_profile',
          key,
          `${key} "${asked}" differs from the profile's pinned ${key} "${pinned[key]}"`,
          `Omit ${key} (the pinned profile decides it) or use another profile`,
        ),
      );
    }
  }
  const pinnedLocation: Partial<Record<string, string>> = {};
  for (const key of LOCATION_KEYS) if (pinned[key]) pinnedLocation[key] = pinned[key];
  return { location: pinnedLocation, connectionType: pinned.connection_type || connectionType };
}

/**
 * Two passes: the body read with the client's schema (types, vocabulary, the quality-flag rule;
 * `readSessionBody`), then the server's rules over the typed value: the password, the location
 * dataset, the profile and its pin.
 */
export function resolveSessionRequest(
  body: Record<string, unknown>,
  ctx: TargetingContext,
): Resolution {
  const { value, refused, typeIssues, valueIssues } = readSessionBody(body);
  const issues = [...typeIssues, ...checkPassword(value, refused, ctx), ...valueIssues];
  const protocol = enumValue('protocol', value, refused, PROTOCOLS);
  let connectionType = enumValue('connection_type', value, refused, CONNECTION_TYPES);
  const sessionType = enumValue('session_type', value, refused, SESSION_TYPES);
  const filterMode = resolveFilterMode(value, refused);
  let location = resolveLocation(value, issues);

  let profile: ProfileRecord | undefined;
  if (value.profile_id !== undefined) {
    profile = ctx.findProfile(value.profile_id);
    if (!profile) {
      issues.push(
        issue(
          'unknown_profile',
          'profile_id',
          `profile "${value.profile_id}" not found`,
          'Use an id from GET /profiles',
        ),
      );
    } else if (profile.pinIp && profile.pinned) {
      ({ location, connectionType } = applyPin(
        location,
        connectionType,
        value,
        profile.pinned,
        issues,
      ));
    }
  }

  const config: SessionConfig = {
    ...location,
    protocol: protocol ?? '',
    connection_type: connectionType ?? '',
    session_type: sessionType ?? '',
    filter_mode: filterMode ?? '',
    quality_filter_enabled: filterMode !== undefined && bearsQuality(filterMode),
    ipv4_only: value.ipv4_only === true,
    profile_name: profile?.name ?? null,
    profile_id: profile?.id ?? null,
  };
  return {
    resolved: {
      config,
      profile,
      idleTimeoutMinutes: value.idle_timeout_minutes ?? 0,
      maxDurationMinutes: value.max_duration_minutes ?? 0,
    },
    issues,
  };
}

/**
 * The proxy username a session would use. Location tokens in the order country, region, city,
 * zip, isp (`-city-<c>`, `-zip-<z>`, `-isp-<i>`), then `-sid-<8 hex>`, the filter tokens of the
 * mode and `-source-browser`. Values that did not validate are left out.
 */
export function proxyUsernamePreview(
  proxyUser: string,
  config: Pick<SessionConfig, (typeof LOCATION_KEYS)[number] | 'filter_mode'>,
  sessionToken: string = randomBytes(4).toString('hex'),
): string {
  let name = proxyUser;
  for (const key of LOCATION_KEYS) {
    const value = config[key];
    if (value) name += `-${key}-${value}`;
  }
  return `${name}-sid-${sessionToken}${filterTokens(config.filter_mode)}-source-browser`;
}

/** One 400 message out of the issues of a create. */
export function issuesMessage(issues: Issue[]): string {
  return issues.map((i) => i.message).join('; ');
}
