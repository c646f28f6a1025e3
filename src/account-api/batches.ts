/** Pure helpers over batches: cost estimate, splitting into valid submits, grouping by location. */
import { rejectField } from '../http/request-validation.js';
import { LIMITS } from './schemas/limits.js';
import type { Location, ResultRow } from './schemas/queries.js';

export interface CostEstimate {
  /**
   * Credits charged at submit, as documented: questions × platforms per submit (summed over the
   * submits `runMany` would make). This is a minimum: how locations affect the charge is not
   * documented.
   */
  credits: number;
  /** Credits if every location were charged too: the most the documented rules allow. */
  maxCredits: number;
  /** Result rows that will be created (questions × platforms × locations). */
  rows: number;
  /** Submits needed to stay within 20 questions and 10 locations each. */
  submits: number;
}

export interface CostParams {
  questions: readonly unknown[];
  platforms: readonly unknown[];
  locations: readonly unknown[];
}

export function estimateCost(params: CostParams): CostEstimate {
  if (typeof params !== 'object' || params === null) {
    rejectField('estimateCost', 'params', 'must be an object { questions, platforms, locations }');
  }
  for (const field of ['questions', 'platforms', 'locations'] as const) {
    if (!Array.isArray(params[field])) rejectField('estimateCost', field, 'must be an array');
  }
  const q = params.questions.length;
  const p = params.platforms.length;
  const l = params.locations.length;
  const locationChunks = Math.ceil(l / LIMITS.locationsPerSubmit);
  return {
    credits: q * p * locationChunks,
    maxCredits: q * p * l,
    rows: q * p * l,
    submits: Math.ceil(q / LIMITS.questionsPerSubmit) * locationChunks,
  };
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface LocationGroup {
  country: string;
  region: string;
  city: string;
  rows: ResultRow[];
}

/**
 * Splits rows by the exact location they ran against (`country`, `region`, `city`), in the
 * order the locations first appear.
 */
export function groupByLocation(rows: readonly ResultRow[]): LocationGroup[] {
  const groups = new Map<string, LocationGroup>();
  for (const row of rows) {
    const key = JSON.stringify([row.country, row.region, row.city]);
    let group = groups.get(key);
    if (!group) {
      group = { country: row.country, region: row.region, city: row.city, rows: [] };
      groups.set(key, group);
    }
    group.rows.push(row);
  }
  return [...groups.values()];
}

export type { Location };
