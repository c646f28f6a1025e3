/**
 * What a page may ask of Node over the WebSocket bridge's binding. A page is not trusted: every
 * payload is parsed with this schema, and anything else (not JSON, `null`, a field of the wrong
 * type, an unknown op) is dropped by the caller with a debug line, never thrown in a CDP event
 * handler.
 */
import { z } from 'zod';

const socketId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const pageMessage = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('open'),
    id: socketId,
    url: z.string().max(8192),
    protocols: z.array(z.string().max(1024)).max(64),
  }),
  z.object({
    op: z.literal('send'),
    id: socketId,
    text: z.string().optional(),
    base64: z.string().optional(),
  }),
  z.object({
    op: z.literal('close'),
    id: socketId,
    code: z.number().int().min(1000).max(4999).optional(),
    reason: z.string().max(123).optional(),
  }),
]);

export type PageMessage = z.infer<typeof pageMessage>;

/** The page's message, or why it is dropped. */
export function parsePageMessage(
  payload: string,
): { ok: true; message: PageMessage } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = pageMessage.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `${issue?.path.join('.') || 'message'}: ${issue?.message}` };
}
