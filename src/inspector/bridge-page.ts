/**
 * The page at the inspector server's URL: the same bridge `@statelyai/inspect`'s own server serves.
 * It embeds the Stately inspector (https://stately.ai/inspect) and posts every message of the
 * server's WebSocket into it, holding them until the inspector says it is connected. Served from
 * 127.0.0.1, and it connects back to 127.0.0.1 (not `localhost`, which may resolve to ::1 first).
 */

/** Where the Stately inspector itself lives (a page of stately.ai, loaded by the browser). */
export const STATELY_INSPECTOR_URL = 'https://stately.ai/inspect';

export function bridgePage(port: number): string {
  return `<!DOCTYPE html>
<html>
<head>
  <title>Stately Inspector</title>
  <style>
    * { margin: 0; padding: 0; }
    html, body { height: 100%; }
    iframe { width: 100%; height: 100%; border: none; }
  </style>
</head>
<body>
  <iframe id="inspector" src="${STATELY_INSPECTOR_URL}"></iframe>
  <script>
    const iframe = document.getElementById('inspector');
    const buffer = [];
    let connected = false;

    window.addEventListener('message', (e) => {
      if (e.data && e.data.type === '@statelyai.connected') {
        connected = true;
        buffer.forEach((event) => {
          iframe.contentWindow.postMessage(event, '*');
        });
        buffer.length = 0;
      }
    });

    const ws = new WebSocket('ws://127.0.0.1:${port}');
    ws.onmessage = (event) => {
      const data = JSON.parse(event.data);
      if (connected) {
        iframe.contentWindow.postMessage(data, '*');
      } else {
        buffer.push(data);
      }
    };
  </script>
</body>
</html>`;
}
