/**
 * Chromium's `Fetch.RequestPattern.urlPattern` matching, so remote CDP hands a paused request
 * only to the feature whose patterns asked for it: `*` is any run of characters, `?` exactly
 * one, and a backslash makes the next character literal.
 */
export function urlPatternMatches(pattern: string, url: string): boolean {
  return urlPatternRegex(pattern).test(url);
}

/** The same pattern as a RegExp (the WebSocket bridge's page script gets its `source`). */
export function urlPatternRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '\\' && i + 1 < pattern.length) {
      i++;
      source += escapeRegex(pattern[i] as string);
    } else if (char === '*') {
      source += '[\\s\\S]*';
    } else if (char === '?') {
      source += '[\\s\\S]';
    } else {
      source += escapeRegex(char);
    }
  }
  return new RegExp(`^${source}$`);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
