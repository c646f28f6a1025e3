/** Schemas of the page actions (`/tools/*` and `/sessions/{id}/click|type|scroll`). */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { IdSchema } from './vocabulary.js';

const session_id = IdSchema;

/** An absolute URL (`https://…`, `data:…`, `about:blank`): a relative one has no page to resolve against. */
const absoluteUrl = lazySchema(() =>
  zod()
    .string()
    .refine((url) => URL.canParse(url), 'must be an absolute URL such as https://example.com'),
);

export const NavigateParamsSchema = lazySchema(() =>
  zod().looseObject({ session_id, url: absoluteUrl }),
);
export const SessionParamsSchema = lazySchema(() => zod().looseObject({ session_id }));
export const ExecuteCodeParamsSchema = lazySchema(() =>
  zod().looseObject({ session_id, code: zod().string().min(1) }),
);
export const ClickParamsSchema = lazySchema(() =>
  zod().looseObject({ session_id, selector: zod().string().min(1) }),
);
export const TypeParamsSchema = lazySchema(() =>
  zod().looseObject({
    session_id,
    selector: zod().string().min(1),
    text: zod().string(),
  }),
);
export const ScrollParamsSchema = lazySchema(() =>
  zod().looseObject({ session_id, x: zod().number(), y: zod().number() }),
);

export interface SessionParams {
  session_id: string;
}
export interface NavigateParams extends SessionParams {
  url: string;
}
export interface ExecuteCodeParams extends SessionParams {
  /** JavaScript run in the page; its value comes back as JSON. */
  code: string;
}
export interface ClickParams extends SessionParams {
  selector: string;
}
export interface TypeParams extends SessionParams {
  selector: string;
  text: string;
}
export interface ScrollParams extends SessionParams {
  x: number;
  y: number;
}

export const ActionOkSchema = lazySchema(() => zod().looseObject({ status: zod().literal('ok') }));
export type ActionOk = z.infer<typeof ActionOkSchema>;
export const ContentResultSchema = lazySchema(() => zod().looseObject({ content: zod().string() }));
export const ScreenshotResultSchema = lazySchema(() =>
  zod().looseObject({
    screenshot: zod().base64(),
    format: zod().literal('png'),
  }),
);
export const PdfResultSchema = lazySchema(() =>
  zod().looseObject({ pdf: zod().base64(), format: zod().literal('pdf') }),
);
/** Any JSON value; a script that returns undefined may come back without the key. */
export const ExecuteCodeResultSchema = lazySchema(() =>
  zod().looseObject({ result: zod().unknown() }),
);
