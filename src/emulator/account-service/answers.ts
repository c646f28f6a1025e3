/**
 * The default answer provider: deterministic text and sources derived from the question, the
 * platform and the location, following the spec's two `sources` rules:
 * - assistant_a cites (inline `[n]` markers plus `sources`) only when it "ran a web search",
 *   here: when the question looks time-sensitive or its hash says so; otherwise `sources: []`;
 * - assistant_b never cites inline, attaches sources less often (a quarter of questions), and
 *   answers shorter and plainer.
 * Source URLs are on the reserved example.* domains, so nothing points at a real site.
 */
import { hash32 } from './random.js';
import type { AnswerRequest, RawResponse, Source } from './types.js';

const TIME_SENSITIVE = /\b(latest|today|current|now|news|price|prices|best|near|open|20\d\d)\b/i;

const PUBLISHERS = ['Example News', 'Example Guide', 'Example Reference', 'Example Review'];
const DOMAINS = ['www.example.com', 'www.example.org', 'www.example.net'];

function placeOf(r: AnswerRequest): string {
  return [r.city, r.region, r.country.toUpperCase()].filter(Boolean).join(', ');
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 48) || 'answer'
  );
}

function sourcesFor(r: AnswerRequest, count: number, seed: number): Source[] {
  return Array.from({ length: count }, (_, i) => {
    const pick = (seed + i) % PUBLISHERS.length;
    return {
      title: `${r.question.slice(0, 60)}: what to know in ${r.city || r.country.toUpperCase()}`,
      url: `https://${DOMAINS[(seed + i) % DOMAINS.length]}/${r.country}/${slug(r.question)}-${i + 1}`,
      publisher: PUBLISHERS[pick] as string,
      snippet: `Background on "${r.question.slice(0, 80)}" for readers in ${placeOf(r)}.`,
    };
  });
}

/** Whether assistant_a "searched the web" for this question. */
export function searchedWeb(question: string): boolean {
  return TIME_SENSITIVE.test(question) || hash32(question) % 3 !== 0;
}

export function defaultAnswerProvider(r: AnswerRequest): RawResponse {
  const h = hash32(`${r.platform}|${r.question}|${r.country}|${r.region}|${r.city}`);
  const place = placeOf(r);
  if (r.platform === 'assistant_b') {
    const cites = hash32(r.question) % 4 === 0;
    return {
      text: `Short answer for ${place}: ${r.question.replace(/\?+$/, '')}, in brief, depends on local conditions.`,
      used_html_fallback: h % 5 === 0,
      sources: cites ? sourcesFor(r, 1, h) : [],
    };
  }
  const searched = searchedWeb(r.question);
  const count = searched ? 1 + (h % 3) : 0;
  const markers = Array.from({ length: count }, (_, i) => ` [${i + 1}]`).join('');
  const who = r.platform === 'assistant_c' ? 'Assistant C' : 'Assistant A';
  return {
    text:
      `${who} answer for ${place}.\n\n` +
      `Question: ${r.question}\n\n` +
      `Here is an overview tailored to ${place}${searched ? ', based on a web search' : ''}.${markers}\n` +
      'The emulator generates this text deterministically from the question, platform and location.',
    used_html_fallback: h % 7 === 0,
    sources: sourcesFor(r, count, h),
  };
}
