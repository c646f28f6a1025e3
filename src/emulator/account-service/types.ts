/**
 * The narrow seams between the account service and the emulator's control plane: the clock it
 * reads, and the accounts it serves (owned by the control plane's store, created by
 * `POST /_emulator/accounts`).
 */
import type { EmulatorClock } from '../clock.js';

/** The emulator clock as this service uses it. */
export type AccountClock = Pick<EmulatorClock, 'now' | 'nowIso' | 'at'>;

/**
 * One account, as the control plane stores it. The service mutates `balance` (charges, refunds,
 * free credits) and `purchased` (the emulator's purchase route) in place.
 */
export interface AccountRecord {
  id: string;
  /** The account service's credential (`Authorization: x-api-key <KEY>`). */
  apiKey: string;
  /** Whether the account has a completed credit-pack purchase (unlocks the query endpoints). */
  purchased: boolean;
  /** Credits available. */
  balance: number;
}

export interface AccountDirectory {
  byApiKey(apiKey: string): AccountRecord | undefined;
  byId(id: string): AccountRecord | undefined;
  /** Every account (admin calls that name no account apply to all of them). */
  list(): Iterable<AccountRecord>;
}

// The wire types are the client's (account-api.md), so an answer provider returns what the
// client reads.
import type { Platform } from '../../account-api/schemas/limits.js';
import type { RawResponse, ResultRow } from '../../account-api/schemas/queries.js';

export type { Source } from '../../account-api/schemas/queries.js';
export type { Platform, RawResponse };

/** Where a row ran, as a polled row reads it. */
export type ResolvedLocation = Pick<ResultRow, 'country' | 'region' | 'city'>;

/** What an answer provider is asked (a polled row's fields); it returns the `raw_response` of a successful row. */
export type AnswerRequest = Pick<
  ResultRow,
  'question' | 'platform' | 'country' | 'region' | 'city'
>;

export type AnswerProvider = (request: AnswerRequest) => RawResponse | Promise<RawResponse>;
