/** The live view's HTML: self-contained (no external assets: the emulator runs offline). */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page of one session; `token` (its live view token) goes into the stream and status URLs. */
export function liveViewPage(sessionId: string, token: string): string {
  const id = escapeHtml(sessionId);
  const base = `/live/${encodeURIComponent(sessionId)}`;
  const query = escapeHtml(`?token=${encodeURIComponent(token)}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Live view: session ${id}</title>
<style>
  html, body { margin: 0; height: 100%; background: #111; color: #ddd; font: 14px system-ui, sans-serif; }
  body { display: flex; flex-direction: column; }
  header { padding: 6px 12px; display: flex; gap: 12px; align-items: center; }
  #state { padding: 2px 8px; border-radius: 10px; background: #264; }
  #state.ended { background: #633; }
  main { flex: 1; display: flex; align-items: center; justify-content: center; min-height: 0; }
  img { max-width: 100%; max-height: 100%; object-fit: contain; background: #222; }
</style>
</head>
<body>
<header><span id="state">live</span><span>session ${id}</span></header>
<main><img id="screen" alt="live view of session ${id}" src="${base}/stream${query}"></main>
<script>
  // The MJPEG stream just stops when the session ends; poll the status to say so.
  const state = document.getElementById('state');
  const timer = setInterval(async () => {
    try {
      const res = await fetch('${base}/status${query}', { cache: 'no-store' });
      const body = res.ok ? await res.json() : { status: 'ended' };
      if (body.status !== 'running') {
        clearInterval(timer);
        state.textContent = 'session ended';
        state.className = 'ended';
      }
    } catch {}
  }, 2000);
</script>
</body>
</html>
`;
}
