/**
 * The page at the inspector server's `/stately`: a bridge to the Stately inspector
 * (https://stately.ai/inspect, a third-party page loaded by the browser). It embeds it and posts the
 * server's WebSocket messages into it once it says it is connected. Without internet it says so
 * after `STATELY_TIMEOUT_MS` instead of staying blank, and it holds at most `MAX_HELD` messages
 * while it waits. Its socket asks for `?view=stately`: the server withholds tool results' content
 * from it unless the host opted in (`shareToolResults`).
 */
import { randomBytes } from 'node:crypto';
import type { ServedPage } from './served-page.js';

/** Where the Stately inspector itself lives (a page of stately.ai, loaded by the browser). */
export const STATELY_INSPECTOR_URL = 'https://stately.ai/inspect';

/** How long the bridge waits for the Stately inspector to say it is connected. */
export const STATELY_TIMEOUT_MS = 15_000;

/** Messages held for the Stately inspector until it is connected; older ones are dropped. */
const MAX_HELD = 2_000;

export function bridgePage(): ServedPage {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Stately inspector (bridge)</title>
  <style>
    * { margin: 0; padding: 0; }
    html, body { height: 100%; font: 14px system-ui, sans-serif; }
    iframe { width: 100%; height: 100%; border: none; }
    #notice { position: fixed; top: 0; left: 0; right: 0; padding: 10px 14px; background: #fff3cd; color: #5c4400; border-bottom: 1px solid #e0c46c; }
    #notice[hidden] { display: none; }
    a { color: #0b57d0; }
  </style>
</head>
<body>
  <div id="notice" role="status">Connecting to the Stately inspector (stately.ai)… <a href="/">The runtime's own view</a> works offline.</div>
  <iframe id="inspector" title="Stately inspector" src="${STATELY_INSPECTOR_URL}"></iframe>
  <script nonce="${nonce}">
    const iframe = document.getElementById('inspector');
    const notice = document.getElementById('notice');
    const held = [];
    let connected = false;
    const timer = setTimeout(() => {
      if (connected) return;
      held.length = 0;
      ws.close();
      notice.innerHTML = 'The Stately inspector (stately.ai) did not answer within ${STATELY_TIMEOUT_MS / 1000} s: no internet, or it is blocked here. <a href="/">Open the runtime\\'s own view</a>, which needs nothing from the internet.';
    }, ${STATELY_TIMEOUT_MS});
    window.addEventListener('message', (e) => {
      if (e.origin !== 'https://stately.ai' || !e.data || e.data.type !== '@statelyai.connected') return;
      connected = true;
      clearTimeout(timer);
      notice.hidden = true;
      for (const data of held) iframe.contentWindow.postMessage(data, 'https://stately.ai');
      held.length = 0;
    });
    const ws = new WebSocket('ws://' + location.host + '/?view=stately');
    ws.onmessage = (event) => {
      const data = JSON.parse(event.data);
      if (connected) iframe.contentWindow.postMessage(data, 'https://stately.ai');
      else if (held.push(data) > ${MAX_HELD}) held.shift();
    };
    ws.onclose = () => { if (connected) { notice.hidden = false; notice.textContent = 'The runtime closed the connection (it shut down?).'; } };
  </script>
</body>
</html>`;
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'unsafe-inline'",
    "connect-src 'self'",
    'frame-src https://stately.ai',
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return { html, csp };
}
