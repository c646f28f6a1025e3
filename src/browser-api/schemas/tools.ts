/** Schemas of the page actions (`/tools/*` and `/sessions/{id}/click|type|scroll`). */
import { z } from 'zod';
import { IdSchema } from './vocabulary.js';

const session_id = IdSchema;

/** An absolute URL (`https://…`, `data:…`, `about:blank`): a relative one has no page to resolve against. */
const absoluteUrl = z
  .string()
  .refine((url) => URL.canParse(url), 'must be an absolute URL such as https://example.com');

export const NavigateParamsSchema = z.looseObject({ session_id, url: absoluteUrl });
export const SessionParamsSchema = z.looseObject({ session_id });
export const ExecuteCodeParamsSchema = z.looseObject({ session_id, code: z.string().min(1) });
export const ClickParamsSchema = z.looseObject({ session_id, selector: z.string().min(1) });
export const TypeParamsSchema = z.looseObject({
  session_id,
  selector: z.string().min(1),
  text: z.string(),
});
export const ScrollParamsSchema = z.looseObject({ session_id, x: z.number(), y: z.number() });

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

export const ActionOkSchema = z.looseObject({ status: z.literal('ok') });
export type ActionOk = z.infer<typeof ActionOkSchema>;
export const ContentResultSchema = z.looseObject({ content: z.string() });
export const ScreenshotResultSchema = z.looseObject({
  screenshot: z.base64(),
  format: z.literal('png'),
});
export const PdfResultSchema = z.looseObject({ pdf: z.base64(), format: z.literal('pdf') });
/** Any JSON value; a script that returns undefined may come back without the key. */
export const ExecuteCodeResultSchema = z.looseObject({ result: z.unknown() });
