import { describe, expect, it } from 'vitest';
import {
  type AccountApi,
  estimateCost,
  groupByLocation,
  isRunManyError,
  RunManyError,
} from '../../src/account-api/index.js';
import { json, type TestServer } from '../helpers/http-server.js';
import { pendingRow, row, useAccountApi } from './fixtures.js';

describe('AccountApi queries.runMany', () => {
  let server: TestServer;
  let api: AccountApi;
  useAccountApi((s, a) => {
    server = s;
    api = a;
  });

  it('splits into submits of at most 20 questions and 10 locations and merges the rows', async () => {
    let n = 0;
    server.respond((req, res) => {
      if (req.method === 'POST') {
        const body = JSON.parse(req.body);
        const id = `b${n++}`;
        const rows = body.questions.flatMap((q: string) =>
          body.locations.map((l: any) =>
            row({ id: `${id}-${q}-${l.country}`, question: q, country: l.country }),
          ),
        );
        return json(200, {
          request_id: id,
          results: rows.map((r: any) => ({ ...r, status: 'pending', raw_response: null })),
          _rows: rows,
        })(req, res);
      }
      const id = req.url.split('/')[6];
      json(200, { request_id: id, results: [row({ id: `${id}-done` })] })(req, res);
    });
    const questions = Array.from({ length: 45 }, (_, i) => `q${i}`);
    const countries = ['us', 'gb', 'de', 'fr', 'jp', 'es', 'it', 'nl', 'se', 'no', 'fi', 'dk'];
    const progress: number[] = [];
    const out = await api.queries.runMany(
      {
        questions,
        platforms: ['assistant_a'],
        locations: countries.map((country) => ({ country })),
      },
      { intervalMs: 1, onProgress: (p) => progress.push(p.submitsDone) },
    );
    const posts = server.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body));
    expect(posts).toHaveLength(6);
    for (const p of posts) {
      expect(p.questions.length).toBeLessThanOrEqual(20);
      expect(p.locations.length).toBeLessThanOrEqual(10);
    }
    expect(out.request_ids).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
    expect(out.results).toHaveLength(6);
    expect(progress.at(-1)).toBe(6);
    expect(estimateCost({ questions, platforms: ['assistant_a'], locations: countries })).toEqual({
      credits: 90,
      maxCredits: 540,
      rows: 540,
      submits: 6,
    });
  });

  it('reports the submitted request ids when a later submit fails', async () => {
    let submits = 0;
    server.respond((req, res) => {
      if (req.method === 'GET')
        return json(200, { request_id: 'b0', results: [pendingRow()] })(req, res);
      if (submits++ === 0) return json(200, { request_id: 'b0', results: [] })(req, res);
      json(402, { error: 'Insufficient credits: 20 required, 3 available.' })(req, res);
    });
    const error = await api.queries
      .runMany(
        {
          questions: Array.from({ length: 25 }, (_, i) => `q${i}`),
          platforms: ['assistant_a'],
          locations: [{ country: 'us' }],
        },
        { intervalMs: 1 },
      )
      .catch((e) => e);
    expect(error).toBeInstanceOf(RunManyError);
    expect(isRunManyError(error)).toBe(true);
    expect(isRunManyError(error.cause)).toBe(false);
    expect(error.requestIds).toEqual(['b0']);
    expect(error.cause.name).toBe('PaymentRequiredError');
  });

  it('groups rows by their exact location', () => {
    const groups = groupByLocation([
      row({ id: '1' }),
      row({ id: '2', country: 'gb', region: 'England', city: 'London' }),
      row({ id: '3' }),
    ] as any);
    expect(groups.map((g) => [g.country, g.rows.map((r) => r.id)])).toEqual([
      ['us', ['1', '3']],
      ['gb', ['2']],
    ]);
  });
});
