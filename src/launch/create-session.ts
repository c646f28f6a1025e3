/**
 * Creating a session without leaking one. Each outcome of `POST /sessions` has one home:
 * - a 429 (the account's concurrent-session limit) waits for a slot, then tries again
 *   (slots.ts): the service did not create anything;
 * - the launch's timeout or abort hands the create off instead of cutting it off mid-flight
 *   (the tracker's `abandoned`);
 * - a create whose response was lost is reconciled, never repeated (the tracker's `lost`).
 * Every transition of the create is the tracker's (tracker.ts).
 */
import { accountKeyOf } from '../browser-api/client.js';
import type { BrowserApi, SessionCreated, SessionCreateParams } from '../browser-api/index.js';
import { type CallScope, raceAbort } from '../http/call-options.js';
import { isRateLimitError } from '../http/errors.js';
import { recorder, reserveSession } from './metering.js';
import { type Slot, takeSlot, waitForSlot } from './slots.js';
import { isLostCreate, tracker } from './tracker.js';

/** The create request's own timeout: long, because cutting it short is what orphans sessions. */
const CREATE_TIMEOUT_MS = 120_000;
/**
 * Longest a launch queued behind this process's own sessions waits before asking the service
 * anyway (a session may have ended unseen: kept, or ended by another client).
 */
const QUEUED_FALLBACK_MS = 5000;

export interface CreateOptions {
  scope: CallScope;
  waitForSlot: boolean;
  what: string;
}

/** The session, and the slot of the account it holds in this process (release when it ends). */
export interface CreatedSession {
  created: SessionCreated;
  slot: Slot;
}

export async function createSession(
  api: BrowserApi,
  body: SessionCreateParams,
  options: CreateOptions,
): Promise<CreatedSession> {
  const { scope, what } = options;
  const slots = tracker.slotsOf(accountKeyOf(api));
  // A budget refuses here, before any request (BudgetExceededError); a refused create gives it back.
  const budgets = reserveSession(what);
  let slotWaitMs = 0;
  // True after a wait that followed a 429: the launch asks again at once, not from the back of
  // the queue (a woken launch that queued again left the turn it was given unused).
  let waited = false;
  for (let attempt = 0; ; attempt++) {
    // Past the limit this client learned, wait for one of its sessions to end before asking.
    const queuedMs = Date.now();
    const slot = await takeSlot(slots, {
      queue: options.waitForSlot && !waited,
      fallbackMs: QUEUED_FALLBACK_MS,
      scope,
      what,
    }).catch((error: unknown) => {
      for (const budget of budgets) budget.unreserveSession();
      throw error;
    });
    slotWaitMs += Date.now() - queuedMs;
    const create = tracker.createSent(api, body, () =>
      api.sessions.create(body, { timeout: CREATE_TIMEOUT_MS }),
    );
    try {
      const created = await raceAbort(create.call, scope, what);
      recorder.waited(created.id, slotWaitMs);
      for (const budget of budgets) budget.started(created.id);
      return { created, slot };
    } catch (error) {
      // A refused create frees nothing at the service: it wakes no other launch.
      slot.release({ wake: !isRateLimitError(error) });
      if (scope.signal.aborted) throw tracker.abandoned(create, scope, what, error);
      if (!isLostCreate(error)) tracker.refused(create);
      if (isRateLimitError(error) && options.waitForSlot) {
        const waitedMs = Date.now();
        await waitForSlot(error, attempt, scope, what, slots).catch((e: unknown) => {
          for (const budget of budgets) budget.unreserveSession();
          throw e;
        });
        slotWaitMs += Date.now() - waitedMs;
        waited = true;
        continue;
      }
      // A refusal made no session; a lost or abandoned create may have: it stays counted.
      if (!isLostCreate(error)) {
        for (const budget of budgets) budget.unreserveSession();
        throw error;
      }
      throw await tracker.lost(create, what, error);
    }
  }
}
