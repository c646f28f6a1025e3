/**
 * `POST /configurations/validate`: the create's own targeting check (`resolveSessionRequest`, city,
 * zip and isp included), reported instead of enforced, and the username the session would carry.
 */

import { ValidationResultSchema } from '../../browser-api/schemas/configurations.js';
import type { RouteRegistrar } from '../server/router.js';
import { data, objectBody } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';
import { type Issue, proxyUsernamePreview, resolveSessionRequest } from './targeting.js';

/** Normalized fields; a field with an issue is `null` (never silently replaced by a default). */
function normalized(config: Record<string, unknown>, issues: Issue[]) {
  const bad = new Set(issues.map((i) => i.field));
  const pick = (field: string, value: unknown) => (bad.has(field) ? null : (value ?? null));
  const filterBad = bad.has('filter_mode') || bad.has('quality_filter_enabled');
  return {
    country: pick('country', config.country),
    region: pick('region', config.region),
    city: pick('city', config.city),
    zip: pick('zip', config.zip),
    isp: pick('isp', config.isp),
    protocol: pick('protocol', config.protocol),
    connection_type: pick('connection_type', config.connection_type),
    session_type: pick('session_type', config.session_type),
    filter_mode: filterBad ? null : config.filter_mode,
    quality_filter: filterBad ? null : config.quality_filter_enabled,
    ipv4_only: pick('ipv4_only', config.ipv4_only),
  };
}

export function registerConfigurationRoutes(
  routes: RouteRegistrar,
  ctx: BrowserServiceContext,
): void {
  routes.add('POST', '/configurations/validate', ({ req, body }) => {
    const account = authenticate(ctx, req);
    const { resolved, issues } = resolveSessionRequest(objectBody(body), {
      account,
      findProfile: (id) => ctx.store.profile(account.id, id),
      requirePassword: false,
    });
    return data(ValidationResultSchema, {
      valid: issues.length === 0,
      normalized: normalized({ ...resolved.config }, issues),
      // The wire's "no suggestion" is null, as the spec shows it.
      issues:
        issues.length === 0
          ? null
          : issues.map((i) => ({ ...i, suggestion: i.suggestion ?? null })),
      proxy_username_preview: proxyUsernamePreview(account.proxyUser, resolved.config),
    });
  });
}
