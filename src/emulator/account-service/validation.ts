/**
 * Validation of `POST /llm/submit/`, answering 400 with `{field: [messages]}` the way the spec
 * shows (an unavailable country under the key `country`). Every problem found is reported, not
 * just the first, like a serializer would.
 */

import { addFieldError, type FieldErrors, fieldErrors } from '../server/http-error.js';
import type { ResolvedAccountOptions } from './account-options.js';
import { isKnownCountry } from './location-normalizer.js';
import { PLATFORMS, type Platform } from './types.js';

export const MAX_QUESTIONS = 20;
export const MAX_QUESTION_LENGTH = 2047;
export const MAX_LOCATIONS = 10;

export interface SubmitLocation {
  country: string;
  region?: string | undefined;
  city?: string | undefined;
}

export interface SubmitRequest {
  questions: string[];
  platforms: Platform[];
  locations: SubmitLocation[];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateSubmit(body: unknown, options: ResolvedAccountOptions): SubmitRequest {
  const errors: FieldErrors = {};
  if (!isRecord(body)) {
    throw fieldErrors({ non_field_errors: ['Invalid data. Expected a JSON object.'] });
  }
  const questions = validateQuestions(body.questions, errors);
  const platforms = validatePlatforms(body.platforms, errors, options);
  const locations = validateLocations(body.locations, errors, options);
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
  return { questions, platforms, locations };
}

function validateQuestions(value: unknown, errors: FieldErrors): string[] {
  const add = (m: string) => addFieldError(errors, 'questions', m);
  if (value === undefined || value === null) {
    add('This field is required.');
    return [];
  }
  if (!Array.isArray(value)) {
    add('Expected a list of strings.');
    return [];
  }
  if (value.length === 0) add('This list may not be empty.');
  if (value.length > MAX_QUESTIONS) {
    add(`Ensure this field has no more than ${MAX_QUESTIONS} elements (got ${value.length}).`);
  }
  value.forEach((q, i) => {
    if (typeof q !== 'string') add(`Item ${i}: expected a string.`);
    else if (q.trim() === '') add(`Item ${i}: this field may not be blank.`);
    else if (q.length > MAX_QUESTION_LENGTH) {
      add(
        `Item ${i}: ensure this field has no more than ${MAX_QUESTION_LENGTH} characters (it has ${q.length}).`,
      );
    }
  });
  return value as string[];
}

function validatePlatforms(
  value: unknown,
  errors: FieldErrors,
  options: ResolvedAccountOptions,
): Platform[] {
  const add = (m: string) => addFieldError(errors, 'platforms', m);
  if (value === undefined || value === null) {
    add('This field is required.');
    return [];
  }
  if (!Array.isArray(value)) {
    add('Expected a list of platform values.');
    return [];
  }
  if (value.length === 0) add('This list may not be empty.');
  const seen = new Set<unknown>();
  for (const p of value) {
    if (typeof p !== 'string' || !(PLATFORMS as readonly string[]).includes(p)) {
      add(`"${String(p).slice(0, 40)}" is not a valid choice (${PLATFORMS.join(', ')}).`);
    } else if (seen.has(p)) {
      add(`Duplicate platform "${p}": each platform may appear once.`);
    } else if (p === 'assistant_c' && options.assistantC === 'reject') {
      add('"assistant_c" is currently unavailable; leave it out of platforms.');
    }
    seen.add(p);
  }
  return value as Platform[];
}

function validateLocations(
  value: unknown,
  errors: FieldErrors,
  options: ResolvedAccountOptions,
): SubmitLocation[] {
  const add = (field: string, m: string) => addFieldError(errors, field, m);
  if (value === undefined || value === null) {
    add('locations', 'This field is required.');
    return [];
  }
  if (!Array.isArray(value)) {
    add('locations', 'Expected a list of location objects.');
    return [];
  }
  if (value.length === 0) add('locations', 'Ensure this field has at least 1 element.');
  if (value.length > MAX_LOCATIONS) {
    add(
      'locations',
      `Ensure this field has no more than ${MAX_LOCATIONS} elements (got ${value.length}).`,
    );
  }
  const out: SubmitLocation[] = [];
  value.forEach((loc, i) => {
    if (!isRecord(loc)) {
      add('locations', `Item ${i}: expected an object.`);
      return;
    }
    const { country, region, city } = loc;
    if (country === undefined || country === null) {
      add('country', `Location ${i}: this field is required.`);
    } else if (typeof country !== 'string' || !/^[a-z]{2}$/.test(country)) {
      add(
        'country',
        `Location ${i}: "${String(country).slice(0, 20)}" is not a lowercase 2-letter ISO country code.`,
      );
    } else if (!isKnownCountry(country)) {
      add('country', `Location ${i}: "${country}" is not an ISO 3166-1 country code.`);
    } else if (options.unavailableCountries.has(country)) {
      add('country', `Location ${i}: the assistants are not offered in "${country}".`);
    }
    if (region !== undefined && region !== null && typeof region !== 'string') {
      add('region', `Location ${i}: expected a string.`);
    }
    if (city !== undefined && city !== null && typeof city !== 'string') {
      add('city', `Location ${i}: expected a string.`);
    }
    out.push({
      country: String(country),
      region: typeof region === 'string' ? region : undefined,
      city: typeof city === 'string' ? city : undefined,
    });
  });
  return out;
}
