import { describe, expect, it } from 'vitest';
import {
  emptiedHeaders,
  isDownloadResponse,
  type PausedResponse,
} from '../../src/remote-cdp/download-response.js';

const NAVIGATION = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

function response(
  headers: Record<string, string>,
  more: Partial<PausedResponse> = {},
  requestHeaders: Record<string, string> = NAVIGATION,
): PausedResponse {
  return {
    request: { url: 'http://files.test/x', headers: requestHeaders },
    resourceType: 'Document',
    responseStatusCode: 200,
    responseHeaders: Object.entries(headers).map(([name, value]) => ({ name, value })),
    ...more,
  };
}

describe('isDownloadResponse', () => {
  it('takes a document response that says Content-Disposition: attachment, whatever its type', () => {
    expect(
      isDownloadResponse(
        response({
          'Content-Disposition': 'attachment; filename="a.html"',
          'content-type': 'text/html',
        }),
      ),
    ).toBe(true);
    expect(isDownloadResponse(response({ 'content-disposition': ' ATTACHMENT' }))).toBe(true);
  });

  it('takes a request of the download manager (no Accept header, as <a download> sends)', () => {
    expect(
      isDownloadResponse(
        response({ 'content-type': 'text/plain' }, {}, { Referer: 'http://files.test/' }),
      ),
    ).toBe(true);
  });

  it('takes a navigation to a type no tab renders', () => {
    expect(isDownloadResponse(response({ 'content-type': 'application/octet-stream' }))).toBe(true);
    expect(
      isDownloadResponse(response({ 'content-type': 'application/zip; charset=binary' })),
    ).toBe(true);
  });

  it('leaves alone what a tab renders: html, text, images, media, json, xml, pdf, +xml types', () => {
    for (const type of [
      'text/html; charset=utf-8',
      'text/csv',
      'image/png',
      'video/mp4',
      'application/json',
      'application/pdf',
      'application/rss+xml',
      'application/ld+json',
    ]) {
      expect(isDownloadResponse(response({ 'content-type': type })), type).toBe(false);
    }
  });

  it('leaves alone inline dispositions, responses without a type, and non-documents', () => {
    expect(
      isDownloadResponse(
        response({
          'content-disposition': 'inline; filename="x.bin"',
          'content-type': 'text/plain',
        }),
      ),
    ).toBe(false);
    expect(isDownloadResponse(response({}))).toBe(false);
    expect(
      isDownloadResponse(
        response({ 'content-disposition': 'attachment' }, { resourceType: 'XHR' }),
      ),
    ).toBe(false);
  });

  it('leaves alone redirects, errors and bodiless statuses, which the browser never saves', () => {
    for (const status of [204, 205, 302, 404, 500]) {
      expect(
        isDownloadResponse(
          response({ 'content-disposition': 'attachment' }, { responseStatusCode: status }),
        ),
        String(status),
      ).toBe(false);
    }
  });
});

describe('emptiedHeaders', () => {
  it('drops the length and encodings of the body the browser no longer gets, keeping the rest', () => {
    expect(
      emptiedHeaders([
        { name: 'Content-Length', value: '10' },
        { name: 'content-encoding', value: 'gzip' },
        { name: 'Transfer-Encoding', value: 'chunked' },
        { name: 'Content-Disposition', value: 'attachment; filename="a.bin"' },
        { name: 'content-type', value: 'application/zip' },
      ]),
    ).toEqual([
      { name: 'Content-Disposition', value: 'attachment; filename="a.bin"' },
      { name: 'content-type', value: 'application/zip' },
    ]);
  });
});
