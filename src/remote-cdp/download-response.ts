/**
 * Which paused document responses the remote browser will turn into a download. The download
 * bridge must read such a body over CDP *before* the browser sees it (the browser names a
 * download only once it has the response, and completes an emptied one at once), so it decides
 * from what Chromium decides from: the headers, and whether the request came from the download
 * manager. A response it wrongly took would reach the page empty, so anything Chromium renders
 * is left alone.
 */

/** The fields of a `Fetch.requestPaused` event at the Response stage that decide it. */
export interface PausedResponse {
  request: { url: string; headers: Record<string, string> };
  resourceType: string;
  responseStatusCode?: number;
  responseHeaders?: { name: string; value: string }[];
}

/** Types a browser shows in a tab; any other type of a navigation's response is downloaded. */
const RENDERED = [
  /^text\//,
  /^image\//,
  /^audio\//,
  /^video\//,
  /^multipart\//,
  /^application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-javascript|pdf|wasm)$/,
  /^application\/[\w.-]+\+(xml|json)$/,
];

function header(event: PausedResponse, name: string): string | undefined {
  return event.responseHeaders?.find((h) => h.name.toLowerCase() === name)?.value;
}

/**
 * Whether the browser will download this response rather than render it: a document response
 * with a 2xx status that says `Content-Disposition: attachment`, or was requested by the
 * download manager (`<a download>`, which sends no `Accept` header, unlike every navigation),
 * or has a type no tab renders (`application/octet-stream`, `application/zip`, …).
 */
export function isDownloadResponse(event: PausedResponse): boolean {
  if (event.resourceType !== 'Document') return false;
  const status = event.responseStatusCode ?? 0;
  if (status < 200 || status > 299 || status === 204 || status === 205) return false;
  const disposition = header(event, 'content-disposition');
  if (disposition && /^\s*attachment\b/i.test(disposition)) return true;
  const accept = Object.keys(event.request.headers).some((name) => name.toLowerCase() === 'accept');
  if (!accept) return true;
  const type = header(event, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (!type) return false;
  return !RENDERED.some((rendered) => rendered.test(type));
}

/** The response headers for the emptied response the browser completes its download from. */
export function emptiedHeaders(
  headers: { name: string; value: string }[] = [],
): { name: string; value: string }[] {
  // The body is gone: a length or encoding that describes it would make the download fail.
  return headers.filter(
    (h) =>
      !['content-length', 'content-encoding', 'transfer-encoding'].includes(h.name.toLowerCase()),
  );
}
