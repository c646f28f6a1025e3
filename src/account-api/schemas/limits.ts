/** The documented limits and platform vocabulary of the account service (account-api.md). */

export const PLATFORMS = ['assistant_a', 'assistant_b', 'assistant_c'] as const;
/** Platforms the spec marks available; `assistant_c` is valid in the schema but unavailable. */
export const AVAILABLE_PLATFORMS = ['assistant_a', 'assistant_b'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const LIMITS = {
  questionsPerSubmit: 20,
  charactersPerQuestion: 2047,
  locationsPerSubmit: 10,
  submitsPerMinute: 20,
  readsPerMinute: 100,
  webhookUrlLength: 500,
  webhookDescriptionLength: 200,
} as const;
