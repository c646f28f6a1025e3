/**
 * In-memory state: accounts and their tokens, sessions, profiles, recordings and asynchronous
 * create requests. Lookups are account-scoped and apply retention, so "unknown", "another
 * account's" and "past retention" are the same `undefined` (a 404 for the caller).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { EmulatorClock } from '../clock.js';
import type { AccountLimits } from '../options.js';
import type {
  Account,
  AsyncCreateRecord,
  ProfileRecord,
  RecordingRecord,
  SessionRecord,
  TokenRecord,
} from './model.js';

/** A new account (`POST /_emulator/accounts`, the admin client's `NewAccountInput`). */
export interface NewAccount {
  /** Default true. */
  purchased?: boolean;
  /** Credits for the account service; default the emulator's `defaultBalance`. */
  balance?: number;
  limits?: Partial<AccountLimits>;
}

export type Authentication =
  | { kind: 'ok'; account: Account }
  | { kind: 'expired' }
  | { kind: 'invalid' };

const secret = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url')}`;

export class Store {
  readonly accounts = new Map<string, Account>();
  readonly tokens = new Map<string, TokenRecord>();
  readonly sessions = new Map<string, SessionRecord>();
  readonly profiles = new Map<string, ProfileRecord>();
  readonly recordings = new Map<string, RecordingRecord>();
  readonly asyncCreates = new Map<string, AsyncCreateRecord>();

  constructor(
    private readonly clock: EmulatorClock,
    private readonly config: {
      defaultLimits: AccountLimits;
      defaultBalance: number;
      retentionMs: number;
      tokenValidityMs: number;
    },
  ) {}

  createAccount(input: NewAccount = {}): { account: Account; token: string } {
    const id = randomUUID();
    const account: Account = {
      id,
      proxyUser: `emu${randomBytes(4).toString('hex')}`,
      proxyPassword: secret('pp'),
      apiKey: secret('ak'),
      purchased: input.purchased ?? true,
      balance: input.balance ?? this.config.defaultBalance,
      limits: { ...this.config.defaultLimits, ...input.limits },
      createdAt: this.clock.now(),
      peakRunningSessions: 0,
    };
    this.accounts.set(id, account);
    return { account, token: this.issueToken(id) };
  }

  /** A fresh browser token (what copying it again from the dashboard gives). Older tokens stay valid until they expire. */
  issueToken(accountId: string): string {
    const token = secret('bt');
    this.tokens.set(token, { accountId, issuedAt: this.clock.now() });
    return token;
  }

  /** Whether a browser token is one of ours and still valid (its account when it is). */
  checkToken(token: string): Authentication {
    const record = this.tokens.get(token);
    const account = record && this.accounts.get(record.accountId);
    if (!record || !account) return { kind: 'invalid' };
    if (this.clock.now() - record.issuedAt >= this.config.tokenValidityMs)
      return { kind: 'expired' };
    return { kind: 'ok', account };
  }

  /** The account's session, unless unknown, another account's, or past retention. */
  session(accountId: string, id: string): SessionRecord | undefined {
    const session = this.sessions.get(id);
    if (!session || session.accountId !== accountId || this.isPastRetention(session))
      return undefined;
    return session;
  }

  /** Sessions of an account still within retention, newest first. */
  sessionsOf(accountId: string): SessionRecord[] {
    // Reversed insertion order first, so sessions created in the same ms still list newest first.
    return [...this.sessions.values()]
      .reverse()
      .filter((s) => s.accountId === accountId && !this.isPastRetention(s))
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  runningSessions(accountId?: string): SessionRecord[] {
    return [...this.sessions.values()].filter(
      (s) => s.status === 'running' && (accountId === undefined || s.accountId === accountId),
    );
  }

  isPastRetention(session: SessionRecord): boolean {
    return (
      session.endedAt !== null && this.clock.now() - session.endedAt >= this.config.retentionMs
    );
  }

  profile(accountId: string, id: string): ProfileRecord | undefined {
    const profile = this.profiles.get(id);
    return profile && profile.accountId === accountId ? profile : undefined;
  }

  profilesOf(accountId: string): ProfileRecord[] {
    return [...this.profiles.values()]
      .filter((p) => p.accountId === accountId)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Published recordings of a session (the session's own visibility is checked by the caller). */
  publishedRecordings(sessionId: string): RecordingRecord[] {
    const now = this.clock.now();
    return [...this.recordings.values()].filter(
      (r) => r.sessionId === sessionId && r.publishedAt <= now,
    );
  }

  asyncCreate(accountId: string, id: string): AsyncCreateRecord | undefined {
    const record = this.asyncCreates.get(id);
    if (!record || record.accountId !== accountId) return undefined;
    if (this.clock.now() - record.createdAt >= this.config.retentionMs) return undefined;
    return record;
  }

  /** Forgets everything except the given accounts (and their tokens). */
  clear(keepAccountIds: ReadonlySet<string> = new Set()): void {
    for (const [id, account] of this.accounts) {
      if (keepAccountIds.has(id)) account.peakRunningSessions = 0;
      else this.accounts.delete(id);
    }
    for (const [token, record] of this.tokens) {
      if (!keepAccountIds.has(record.accountId)) this.tokens.delete(token);
    }
    this.sessions.clear();
    this.profiles.clear();
    this.recordings.clear();
    this.asyncCreates.clear();
  }
}
