/**
 * One keep-alive connection pool for the whole process, used by launches that bring no client
 * of their own (`launchRemote()` without `api`): without it each launch paid a new TCP (and
 * TLS) handshake, one round trip or more, for a client it closed a few seconds later.
 * It never keeps the process alive: undici unrefs a socket while no request is on it, and
 * closes it after `keepAliveTimeout` idle.
 */
import type { Dispatcher } from 'undici';
import { loadUndici } from './undici.js';

/** Idle time before a pooled connection is closed (the service may close it sooner). */
const KEEP_ALIVE_MS = 10_000;

let shared: Promise<Dispatcher> | undefined;

export function sharedDispatcher(): Promise<Dispatcher> {
  shared ??= loadUndici().then(({ Agent }) => new Agent({ keepAliveTimeout: KEEP_ALIVE_MS }));
  return shared;
}
