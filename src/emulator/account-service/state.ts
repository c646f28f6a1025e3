/**
 * What the account service remembers per account, beside the balance and purchase flag that
 * the control plane's account record holds: batches and rows, webhooks, notifications, and the
 * month whose free credits were last granted. In memory, gone on reset.
 */
import type { z } from 'zod';
import type { ResultRowSchema } from '../../account-api/schemas/queries.js';
import type { NotificationAnswerSchema, WebhookAnswerSchema } from './wire-schemas.js';

/** A row as `GET /llm/results/` answers it: the client's schema of a polled row. */
export type Row = z.input<typeof ResultRowSchema>;

/** A row plus what only the emulator knows about it. */
export interface RowRecord {
  row: Row;
  accountId: string;
  /** Emulator ms at which the row leaves `pending`. */
  resolveAt: number;
  willFail: boolean;
  /** Rows sharing a credit (one question × platform pair, unless locations are charged too). */
  credit: CreditRecord;
  settling: boolean;
  timer: { cancel(): void } | undefined;
}

export interface CreditRecord {
  rows: number;
  failed: number;
}

export interface Batch {
  requestId: string;
  rows: RowRecord[];
}

/** A webhook as the service answers it (every field filled), and its secrets. */
export type WebhookRecord = Required<z.input<typeof WebhookAnswerSchema>> & {
  secret: string;
  previousSecret: string | undefined;
  /** Emulator ms until which `previousSecret` still signs. */
  previousValidUntil: number | undefined;
};

/** A notification as the service answers it, and whether it was read. */
export type NotificationRecord = z.input<typeof NotificationAnswerSchema> & { read: boolean };

export interface AccountState {
  /** `YYYY-MM` (UTC) of the last free-credit grant. */
  freeCreditsMonth: string | undefined;
  batches: Map<string, Batch>;
  webhooks: Map<string, WebhookRecord>;
  notifications: Map<string, NotificationRecord>;
}

export class AccountStates {
  readonly #states = new Map<string, AccountState>();

  of(accountId: string): AccountState {
    let state = this.#states.get(accountId);
    if (!state) {
      state = {
        freeCreditsMonth: undefined,
        batches: new Map(),
        webhooks: new Map(),
        notifications: new Map(),
      };
      this.#states.set(accountId, state);
    }
    return state;
  }

  /** Every pending row timer is cancelled, every record forgotten. */
  reset(): void {
    for (const state of this.#states.values()) {
      for (const batch of state.batches.values()) {
        for (const record of batch.rows) record.timer?.cancel();
      }
    }
    this.#states.clear();
  }
}
