import { describe, expect, it } from 'vitest';
import {
  defaultAnswerProvider,
  searchedWeb,
} from '../../../src/emulator/account-service/answers.js';
import { normalizeLocation } from '../../../src/emulator/account-service/location-normalizer.js';

const place = { country: 'us', region: 'New York', city: 'New York' };
const questions = Array.from({ length: 40 }, (_, i) => `plain question number ${i}`);

describe('default answer provider', () => {
  it('gives assistant_a sources only when it searched the web, else an empty list', () => {
    for (const question of questions) {
      const answer = defaultAnswerProvider({ question, platform: 'assistant_a', ...place });
      expect(answer.sources.length > 0).toBe(searchedWeb(question));
    }
    expect(questions.some((q) => !searchedWeb(q))).toBe(true);
  });

  it('never cites inline for assistant_b and attaches sources less often than assistant_a', () => {
    let a = 0;
    let b = 0;
    for (const question of questions) {
      const answerB = defaultAnswerProvider({ question, platform: 'assistant_b', ...place });
      expect(answerB.text).not.toMatch(/https?:\/\/|\[\d+\]/);
      b += answerB.sources.length > 0 ? 1 : 0;
      a +=
        defaultAnswerProvider({ question, platform: 'assistant_a', ...place }).sources.length > 0
          ? 1
          : 0;
    }
    expect(b).toBeLessThan(a);
  });

  it('is deterministic for the same question, platform and location', () => {
    const r = { question: 'q?', platform: 'assistant_a' as const, ...place };
    expect(defaultAnswerProvider(r)).toEqual(defaultAnswerProvider(r));
  });
});

describe('location normalization', () => {
  it('resolves a region by code or name and a city in any letter case', () => {
    expect(normalizeLocation('us', 'ca', 'LOS ANGELES')).toEqual({
      country: 'us',
      region: 'California',
      city: 'Los Angeles',
    });
    expect(normalizeLocation('de', 'Bavaria', 'munich').region).toBe('Bavaria');
    expect(normalizeLocation('gb', undefined, 'edinburgh').region).toBe('Scotland');
    expect(normalizeLocation('it', 'Lazio', 'rome')).toEqual({
      country: 'it',
      region: 'Lazio',
      city: 'Rome',
    });
    expect(normalizeLocation('us')).toEqual({ country: 'us', region: '', city: '' });
  });
});
