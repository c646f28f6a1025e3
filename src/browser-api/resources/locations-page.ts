/**
 * The result of a location call: awaitable as one page (the given `limit`/`offset`), and
 * iterable with `for await` over every page. Nothing is sent until it is awaited or iterated,
 * and a request error found by the client-side checks surfaces there (a rejected promise, a
 * throwing iteration), so `.then(ok, fail)` sees it like any other failure.
 */
import type { CallOptions } from '../../http/call-options.js';
import type { LocationItem } from '../schemas/locations.js';

/** Page size of `for await` when the caller gives no `limit`. */
export const DEFAULT_PAGE_SIZE = 100;

export type FetchPage = (
  page: { limit: number | undefined; offset: number | undefined },
  opts: CallOptions,
) => Promise<LocationItem[]>;

export class LocationsPage implements PromiseLike<LocationItem[]>, AsyncIterable<LocationItem> {
  readonly #fetch: FetchPage;
  readonly #limit: number | undefined;
  readonly #offset: number | undefined;
  readonly #opts: CallOptions;
  readonly #error: unknown;
  #first: Promise<LocationItem[]> | undefined;

  constructor(
    fetch: FetchPage,
    page: { limit?: number | undefined; offset?: number | undefined },
    opts: CallOptions,
    error?: unknown,
  ) {
    this.#fetch = fetch;
    this.#limit = page.limit;
    this.#offset = page.offset;
    this.#opts = opts;
    this.#error = error;
  }

  /** The one page; fetched once, however often it is awaited. */
  // biome-ignore lint/suspicious/noThenProperty: awaitable by design, like a query builder
  then<R1 = LocationItem[], R2 = never>(
    onfulfilled?: ((value: LocationItem[]) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    this.#first ??=
      this.#error !== undefined
        ? Promise.reject(this.#error)
        : this.#fetch({ limit: this.#limit, offset: this.#offset }, this.#opts);
    return this.#first.then(onfulfilled, onrejected);
  }

  /** Every item from `offset` on, page by page, until a page shorter than the page size. */
  async *[Symbol.asyncIterator](): AsyncIterator<LocationItem> {
    if (this.#error !== undefined) throw this.#error;
    const limit = this.#limit ?? DEFAULT_PAGE_SIZE;
    let offset = this.#offset ?? 0;
    for (;;) {
      const items = await this.#fetch({ limit, offset }, this.#opts);
      yield* items;
      if (items.length < limit) return;
      offset += items.length;
    }
  }
}
