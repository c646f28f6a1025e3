/**
 * The proxy vocabulary, in one place: `/proxy/options` serves it, targeting validates against
 * it, and the username preview reads its filter levels, so the three can never disagree.
 */
import type { z } from 'zod';
import type { ProxyOptionItemSchema } from '../../browser-api/schemas/proxy.js';

/** An item of the client's `ProxyOptionItemSchema`, labelled. */
export type OptionItem = z.input<typeof ProxyOptionItemSchema> & {
  value: string;
  label: string;
  default?: true;
};

export const CONNECTION_TYPES: readonly OptionItem[] = [
  { value: 'residential', label: 'Residential', default: true },
  { value: 'mobile', label: 'Mobile' },
];

export const SESSION_TYPES: readonly OptionItem[] = [
  { value: 'sticky', label: 'Sticky (keep the same IP)', default: true },
  { value: 'rotating', label: 'Rotating (new IP each connection)' },
  { value: 'no_rotating', label: 'No rotating (pin IP, never rotate)' },
];

export const PROTOCOLS: readonly OptionItem[] = [
  { value: 'http', label: 'HTTP', default: true },
  { value: 'socks5', label: 'SOCKS5' },
];

export const FILTER_MODES: readonly OptionItem[] = [
  { value: 'quality', label: 'Quality', default: true },
  { value: 'quality_speed', label: 'Quality and speed' },
  { value: 'speed', label: 'Speed' },
  { value: 'none', label: 'No filter' },
];

/** Platform configuration: a request cannot choose these levels. */
export const FILTER_LEVELS = { quality: 'medium', speed: 'fast' } as const;

export const valuesOf = (items: readonly OptionItem[]) => items.map((i) => i.value);
export const defaultOf = (items: readonly OptionItem[]) =>
  (items.find((i) => i.default) ?? items[0])?.value as string;

/** Filter modes whose deprecated `quality_filter_enabled` view is true. */
export const QUALITY_BEARING_MODES: ReadonlySet<string> = new Set(['quality', 'quality_speed']);

/** Proxy username filter tokens of a mode, with the levels above. */
export function filterTokens(mode: string): string {
  switch (mode) {
    case 'quality':
      return `-filter-${FILTER_LEVELS.quality}`;
    case 'quality_speed':
      return `-filter-${FILTER_LEVELS.quality}-speed-${FILTER_LEVELS.speed}`;
    case 'speed':
      return `-speed-${FILTER_LEVELS.speed}`;
    default:
      return '';
  }
}
