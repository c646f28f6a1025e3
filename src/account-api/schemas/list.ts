/** List responses: the container is "not shown" by the spec, so common wrappers are unwrapped. */
import type { z } from 'zod';
import { zod } from '../../http/lazy-schema.js';

export function listOf<T extends z.ZodType>(item: T) {
  return zod().preprocess((body) => {
    if (Array.isArray(body)) return body;
    if (body && typeof body === 'object') {
      for (const key of ['results', 'data', 'items', 'webhooks', 'event_types', 'notifications']) {
        const value = (body as Record<string, unknown>)[key];
        if (Array.isArray(value)) return value;
      }
    }
    return body;
  }, zod().array(item));
}
