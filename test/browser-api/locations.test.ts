import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LocationItem } from '../../src/browser-api/index.js';
import { isRequestValidationError, ServiceUnavailableError } from '../../src/http/errors.js';
import { json } from '../helpers/http-server.js';
import { type ApiFixture, ok, startApi, wirePath } from './api-server.js';

let f: ApiFixture;
beforeAll(async () => {
  f = await startApi();
});
afterAll(() => f.close());
afterEach(() => {
  f.server.requests.length = 0;
});

const items = (from: number, count: number): LocationItem[] =>
  Array.from({ length: count }, (_, i) => ({
    code: `c${from + i}`,
    name: `C ${from + i}`,
    availability: 'high',
  }));

/** Serves `total` items, honouring limit and offset. */
function pagedHandler(total: number) {
  return (req: { url: string }, res: import('node:http').ServerResponse) => {
    const url = new URL(req.url, 'http://x');
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const count = Math.max(0, Math.min(limit, total - offset));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: items(offset, count) }));
  };
}

describe('locations', () => {
  it('awaits as one page with the given query', async () => {
    f.server.respond(pagedHandler(30));
    const page = await f.api.locations.countries({
      search: 'ger',
      connection_type: 'isp',
      limit: 10,
      offset: 5,
    });
    expect(page.map((i) => i.code)).toEqual(items(5, 10).map((i) => i.code));
    expect(wirePath(f.server.requests[0])).toBe(
      '/locations/countries?connection_type=isp&limit=10&offset=5&search=ger',
    );
  });

  it('fetches a page once however often it is awaited', async () => {
    f.server.respond(pagedHandler(3));
    const page = f.api.locations.countries();
    await page;
    await page;
    expect(f.server.requests).toHaveLength(1);
    expect(wirePath(f.server.requests[0])).toBe('/locations/countries');
  });

  it('walks every page with for await until a short page', async () => {
    f.server.respond(pagedHandler(25));
    const codes: string[] = [];
    for await (const item of f.api.locations.regions({ country: 'us', limit: 10 }))
      codes.push(item.code);
    expect(codes).toEqual(items(0, 25).map((i) => i.code));
    expect(f.server.requests.map(wirePath)).toEqual([
      '/locations/regions?limit=10&country=us&offset=0',
      '/locations/regions?limit=10&country=us&offset=10',
      '/locations/regions?limit=10&country=us&offset=20',
    ]);
  });

  it('iterates with a page size of 100 when no limit is given, and stops after an empty page', async () => {
    f.server.respond(pagedHandler(200));
    let count = 0;
    for await (const _ of f.api.locations.isps({ country: 'us' })) count++;
    expect(count).toBe(200);
    expect(f.server.requests.map(wirePath)).toEqual([
      '/locations/isps?country=us&limit=100&offset=0',
      '/locations/isps?country=us&limit=100&offset=100',
      '/locations/isps?country=us&limit=100&offset=200',
    ]);
  });

  it('stops iterating when the caller breaks out', async () => {
    f.server.respond(pagedHandler(1000));
    for await (const item of f.api.locations.countries({ limit: 5 })) {
      if (item.code === 'c7') break;
    }
    expect(f.server.requests).toHaveLength(2);
  });

  it('uses the hyphenated level path for zip codes and its narrowing params', async () => {
    f.server.respond(pagedHandler(1));
    await f.api.locations.zipCodes({ country: 'us', region: 'ca', city: 'la', ipv4_only: true });
    await f.api.locations.cities({ country: 'us', region: 'ca' });
    expect(f.server.requests.map(wirePath)).toEqual([
      '/locations/zip-codes?ipv4_only=true&country=us&region=ca&city=la',
      '/locations/cities?country=us&region=ca',
    ]);
  });

  it('checks required parent params before any request, on await and on iteration', async () => {
    const cases = [
      [
        () => f.api.locations.regions({} as never),
        'locations.regions: invalid request: country: is required',
      ],
      [
        () => f.api.locations.cities({ country: 'us' } as never),
        'locations.cities: invalid request: region: is required',
      ],
      [
        () => f.api.locations.isps({ country: '' }),
        'locations.isps: invalid request: country: must not be empty',
      ],
      [
        () => f.api.locations.zipCodes(undefined as never),
        'locations.zipCodes: invalid request: country: is required',
      ],
      [
        () => f.api.locations.countries({ connection_type: 'satellite' as never }),
        'connection_type: must be one of residential, mobile, isp (got "satellite")',
      ],
      [() => f.api.locations.countries({ offset: -1 }), 'offset: must be >= 0 (got -1)'],
    ] as const;
    for (const [call, message] of cases) {
      const error = await Promise.resolve(call()).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isRequestValidationError(error)).toBe(true);
      expect((error as Error).message).toContain(message);
      await expect(async () => {
        for await (const _ of call());
      }).rejects.toThrow(message);
    }
    expect(f.server.requests).toHaveLength(0);
  });

  it('reports a 503 when location data is not configured', async () => {
    f.server.respond(
      json(503, {
        error: 'location data not configured',
        reason: 'locations_unconfigured',
        retry_after: 120,
      }),
    );
    const error = await Promise.resolve(f.api.locations.countries()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).reason).toBe('locations_unconfigured');
  });

  it('accepts any availability string and extra fields', async () => {
    f.server.respond(
      ok([{ code: 'us', name: 'United States', availability: 'medium', population: 1 }]),
    );
    expect(await f.api.locations.countries()).toEqual([
      { code: 'us', name: 'United States', availability: 'medium', population: 1 },
    ]);
  });
});
