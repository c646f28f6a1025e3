/**
 * The proxy vocabulary, in one place: `/proxy/options` serves it, targeting validates against
 * it, and the username preview reads its filter levels, so the three can never disagree. The
 * values are the client's enums (`browser-api/schemas/vocabulary.ts`), in their order; the
 * emulator adds the labels and defaults (a value without a label is a type error here).
 */
import type { z } from 'zod';
import type { ProxyOptionItemSchema } from '../../browser-api/schemas/proxy.js';
import {
  type ConnectionType,
  ConnectionTypeSchema,
  type FilterMode,
  FilterModeSchema,
  type Protocol,
  ProtocolSchema,
  type SessionType,
  SessionTypeSchema,
} from '../../browser-api/schemas/vocabulary.js';

/** An item of the client's `ProxyOptionItemSchema`, labelled. */
export type OptionItem = z.input<typeof ProxyOptionItemSchema> & {
  value: string;
  label: string;
  default?: true;
};

/** The items of a client enum, in its order, `fallback` marked as the default. */
function itemsOf<V extends string>(
  enumSchema: { options: readonly V[] },
  labels: Readonly<Record<V, string>>,
  fallback: V,
): readonly OptionItem[] {
  return enumSchema.options.map((value) => ({
    value,
    label: labels[value],
    ...(value === fallback ? { default: true as const } : {}),
  }));
}

export const CONNECTION_TYPES = itemsOf<ConnectionType>(
  ConnectionTypeSchema,
  { residential: 'Residential', mobile: 'Mobile' },
  'residential',
);

export const SESSION_TYPES = itemsOf<SessionType>(
  SessionTypeSchema,
  {
    sticky: 'Sticky (keep the same IP)',
    rotating: 'Rotating (new IP each connection)',
    no_rotating: 'No rotating (pin IP, never rotate)',
  },
  'sticky',
);

export const PROTOCOLS = itemsOf<Protocol>(
  ProtocolSchema,
  { http: 'HTTP', socks5: 'SOCKS5' },
  'http',
);

export const FILTER_MODES = itemsOf<FilterMode>(
  FilterModeSchema,
  { quality: 'Quality', quality_speed: 'Quality and speed', speed: 'Speed', none: 'No filter' },
  'quality',
);

/** Platform configuration: a request cannot choose these levels. */
export const FILTER_LEVELS = { quality: 'medium', speed: 'fast' } as const;

export const defaultOf = (items: readonly OptionItem[]) =>
  (items.find((i) => i.default) ?? items[0])?.value as string;

/** Proxy username filter tokens of each mode, with the levels above (`none`: no token). */
const FILTER_TOKENS: ReadonlyMap<string, string> = new Map([
  ['quality', `-filter-${FILTER_LEVELS.quality}`],
  ['quality_speed', `-filter-${FILTER_LEVELS.quality}-speed-${FILTER_LEVELS.speed}`],
  ['speed', `-speed-${FILTER_LEVELS.speed}`],
]);

export const filterTokens = (mode: string): string => FILTER_TOKENS.get(mode) ?? '';
