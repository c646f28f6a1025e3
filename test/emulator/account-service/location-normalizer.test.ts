/**
 * How the account service words a result row's location (location-normalizer.ts): a region from
 * its code or name in any case or accent, a city from its name or slug, both as display names,
 * a known city filling in its region; what the dataset does not know passes through.
 */
import { describe, expect, it } from 'vitest';
import {
  isKnownCountry,
  normalizeLocation,
} from '../../../src/emulator/account-service/location-normalizer.js';

describe('normalizeLocation', () => {
  it('words a region given by code or by name, in any case', () => {
    expect(normalizeLocation('us', 'CA')).toEqual({
      country: 'us',
      region: 'California',
      city: '',
    });
    expect(normalizeLocation('us', ' new york ').region).toBe('New York');
  });

  it('matches names without their accents and fills in the region of a known city', () => {
    expect(normalizeLocation('fr', 'ile-de-france', 'PARIS')).toEqual({
      country: 'fr',
      region: 'Île-de-France',
      city: 'Paris',
    });
    expect(normalizeLocation('fr', "PROVENCE-ALPES-COTE D'AZUR").region).toBe(
      "Provence-Alpes-Côte d'Azur",
    );
    expect(normalizeLocation('us', null, 'los_angeles')).toEqual({
      country: 'us',
      region: 'California',
      city: 'Los Angeles',
    });
    expect(normalizeLocation('us', undefined, 'san   francisco').city).toBe('San Francisco');
  });

  it('looks for a city only in the region given, and passes through what it does not know', () => {
    // Buffalo is in New York: asked for in California it is not matched, only title-cased.
    expect(normalizeLocation('us', 'ca', 'buffalo')).toEqual({
      country: 'us',
      region: 'California',
      city: 'Buffalo',
    });
    expect(normalizeLocation('us', 'Ontario', 'springfield-upon-sea')).toEqual({
      country: 'us',
      region: 'Ontario',
      city: 'Springfield-Upon-Sea',
    });
    expect(normalizeLocation('br', 'sp', 'são paulo')).toEqual({
      country: 'br',
      region: 'sp',
      city: 'São Paulo',
    });
  });
});

describe('isKnownCountry', () => {
  it('knows the ISO 3166-1 codes in lowercase, not the codes ISO has not assigned', () => {
    for (const code of ['us', 'de', 'br', 'aq']) expect(isKnownCountry(code), code).toBe(true);
    for (const code of ['US', 'xk', 'ac', 'ta', 'zz', ''])
      expect(isKnownCountry(code), code).toBe(false);
  });
});
