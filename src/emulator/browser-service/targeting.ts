/**
 * The ONE validation and resolution of a session request, shared by `POST /sessions` (issues
 * become a 400) and `POST /configurations/validate` (issues are reported with a 200), so a config
 * that validates also creates.
 */
import { randomBytes } from 'node:crypto';
import type { Account, PinnedLocation, ProfileRecord, SessionConfig } from './model.js';
import { type Issue, issue } from './targeting-issue.js';
import { lower, resolveLocation } from './targeting-location.js';
import {
  CONNECTION_TYPES,
  defaultOf,
  FILTER_MODES,
  filterTokens,
  type OptionItem,
  PROTOCOLS,
  QUALITY_BEARING_MODES,
  SESSION_TYPES,
  valuesOf,
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

const STRING_FIELDS = [
  'proxy_password',
  'protocol',
  'connection_type',
  'session_type',
  'filter_mode',
  'country',
  'region',
  'city',
  'zip',
  'isp',
  'profile_id',
] as const;
const BOOLEAN_FIELDS = [
  'quality_filter_enabled',
  'ipv4_only',
  'extra_stealth',
  'captcha_solver',
  'cloudflare_web_bot_auth',
  'ad_blocker',
  'popup_blocker',
  'headless',
] as const;
const MINUTE_FIELDS = ['max_duration_minutes', 'idle_timeout_minutes'] as const;
const LOCATION_KEYS = ['country', 'region', 'city', 'zip', 'isp'] as const;

type Body = Record<string, unknown>;

/** `null` counts as omitted, like an SDK that sends `None` for an unset option. */
const present = (body: Body, key: string) => body[key] !== undefined && body[key] !== null;

function typeIssues(body: Body): Issue[] {
  const issues: Issue[] = [];
  for (const key of STRING_FIELDS) {
    if (present(body, key) && typeof body[key] !== 'string') {
      issues.push(issue('invalid_type', key, `${key} must be a string`, null));
    }
  }
  for (const key of BOOLEAN_FIELDS) {
    if (present(body, key) && typeof body[key] !== 'boolean') {
      issues.push(issue('invalid_type', key, `${key} must be a boolean`, 'Use true or false'));
    }
  }
  for (const key of MINUTE_FIELDS) {
    const value = body[key];
    if (present(body, key) && !(Number.isInteger(value) && (value as number) >= 0)) {
      issues.push(
        issue('invalid_type', key, `${key} must be an integer >= 0`, '0 uses the account limit'),
      );
    }
  }
  return issues;
}

function enumValue(
  body: Body,
  field: string,
  items: readonly OptionItem[],
  issues: Issue[],
): string | undefined {
  if (!present(body, field) || typeof body[field] !== 'string') return defaultOf(items);
  const value = body[field] as string;
  const allowed = valuesOf(items);
  if (allowed.includes(value)) return value;
  const code = field === 'filter_mode' ? 'unsupported_filter_mode' : `unsupported_${field}`;
  issues.push(
    issue(
      code,
      field,
      `${field} "${value}" is not supported; allowed values: ${allowed.join(', ')}`,
      `Use one of: ${allowed.join(', ')}`,
    ),
  );
  return undefined;
}

/** `quality_filter_enabled` (deprecated) and `filter_mode` → one mode, or a conflict issue. */
export function resolveFilterMode(body: Body, issues: Issue[]): string | undefined {
  const mode = enumValue(body, 'filter_mode', FILTER_MODES, issues);
  const legacy = body.quality_filter_enabled;
  if (typeof legacy !== 'boolean') return mode;
  if (!present(body, 'filter_mode')) return legacy ? 'quality' : 'none';
  // Both sent: accepted when the deprecated view of the mode agrees with the boolean.
  if (mode !== undefined && QUALITY_BEARING_MODES.has(mode) !== legacy) {
    issues.push(
      issue(
        'conflicting_quality_filter',
        'quality_filter_enabled',
        `quality_filter_enabled ${legacy} contradicts filter_mode "${mode}"`,
        'Send only filter_mode (quality_filter_enabled is deprecated)',
      ),
    );
    return undefined;
  }
  return mode;
}

function checkPassword(body: Body, ctx: TargetingContext, issues: Issue[]): void {
  const password = body.proxy_password;
  if (!present(body, 'proxy_password')) {
    if (ctx.requirePassword) {
      issues.push(
        issue(
          'missing_proxy_password',
          'proxy_password',
          'proxy_password is required: a session cannot exist without an active proxy',
          "Send the account's proxy password",
        ),
      );
    }
    return;
  }
  if (typeof password === 'string' && password !== ctx.account.proxyPassword) {
    issues.push(
      issue(
        'invalid_proxy_password',
        'proxy_password',
        "proxy_password does not match the account's proxy password",
        'Copy the proxy password from the dashboard',
      ),
    );
  }
}

function applyPin(
  location: Partial<Record<string, string>>,
  connectionType: string | undefined,
  body: Body,
  pinned: PinnedLocation,
  issues: Issue[],
): { location: Partial<Record<string, string>>; connectionType: string | undefined } {
  for (const key of [...LOCATION_KEYS, 'connection_type'] as const) {
    const asked = key === 'connection_type' ? lower(body[key]) : location[key];
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

export function resolveSessionRequest(body: Body, ctx: TargetingContext): Resolution {
  const issues = typeIssues(body);
  checkPassword(body, ctx, issues);
  const protocol = enumValue(body, 'protocol', PROTOCOLS, issues);
  let connectionType = enumValue(body, 'connection_type', CONNECTION_TYPES, issues);
  const sessionType = enumValue(body, 'session_type', SESSION_TYPES, issues);
  const filterMode = resolveFilterMode(body, issues);
  let location = resolveLocation(body, issues);

  let profile: ProfileRecord | undefined;
  if (typeof body.profile_id === 'string') {
    profile = ctx.findProfile(body.profile_id);
    if (!profile) {
      issues.push(
        issue(
          'unknown_profile',
          'profile_id',
          `profile "${body.profile_id}" not found`,
          'Use an id from GET /profiles',
        ),
      );
    } else if (profile.pinIp && profile.pinned) {
      ({ location, connectionType } = applyPin(
        location,
        connectionType,
        body,
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
    quality_filter_enabled: filterMode !== undefined && QUALITY_BEARING_MODES.has(filterMode),
    ipv4_only: body.ipv4_only === true,
    profile_name: profile?.name ?? null,
    profile_id: profile?.id ?? null,
  };
  const minutes = (key: string) => (Number.isInteger(body[key]) ? (body[key] as number) : 0);
  return {
    resolved: {
      config,
      profile,
      idleTimeoutMinutes: minutes('idle_timeout_minutes'),
      maxDurationMinutes: minutes('max_duration_minutes'),
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
