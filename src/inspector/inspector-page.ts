/**
 * The page at the inspector server's `/`: the runtime's own view of its supervision tree, which
 * needs nothing from the internet (inline CSS, script and SVG; no CDN). It connects back to the
 * server's WebSocket as a read-only viewer and shows every actor in the tree with its status, its
 * current state, its last events and its statechart, the active states highlighted as they move.
 * It links to the Stately inspector (`/stately`) when stately.ai answers, and says so when it does
 * not. It keeps at most `MAX_FINISHED` finished actors, and `MAX_EVENTS` events per actor.
 */
import { randomBytes } from 'node:crypto';
import { STATELY_INSPECTOR_URL } from './bridge-page.js';
import type { ServedPage } from './served-page.js';
import { activeStatePaths, statechartSvg } from './statechart-drawing.js';

/** How long the page waits for stately.ai before it says it is not reachable. */
export const STATELY_PROBE_MS = 5_000;
const MAX_EVENTS = 8;
const MAX_FINISHED = 30;

const STYLE = `
  :root { color-scheme: light; --ink: #1f2328; --muted: #656d76; --line: #d0d7de; --active: #0b57d0; --done: #8c959f; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f6f8fa; }
  header { display: flex; gap: 16px; align-items: baseline; padding: 10px 16px; background: #fff; border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 1; }
  header h1 { font-size: 15px; margin: 0; }
  #connection { color: var(--muted); }
  #connection.closed { color: #b42318; font-weight: 600; }
  #stately-note { color: var(--muted); margin-left: auto; }
  #stately-note.unreachable { color: #8a5a00; }
  a { color: var(--active); }
  main { padding: 12px 16px; }
  #empty { color: var(--muted); }
  .actor { background: #fff; border: 1px solid var(--line); border-radius: 8px; margin: 0 0 10px; padding: 8px 12px; }
  .actor[data-status="done"], .actor[data-status="error"], .actor[data-status="stopped"] { opacity: 0.7; }
  .actor > .title { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
  .actor .name { font-weight: 600; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
  .actor .status { font-size: 11px; padding: 0 6px; border-radius: 10px; background: #dafbe1; color: #116329; }
  .actor[data-status="done"] .status, .actor[data-status="stopped"] .status { background: #eaeef2; color: var(--muted); }
  .actor[data-status="error"] .status { background: #ffebe9; color: #b42318; }
  .actor .state { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--active); }
  .actor .events { margin: 4px 0 0; padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 4px; color: var(--muted); font-size: 11px; }
  .actor .events li { border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; font-family: ui-monospace, monospace; }
  .drawing { overflow-x: auto; margin-top: 6px; }
  svg.statechart { font: 11px ui-monospace, SFMono-Regular, Menlo, monospace; }
  svg.statechart .state rect { fill: #fff; stroke: #8c959f; stroke-width: 1; }
  svg.statechart .state text { fill: var(--ink); }
  svg.statechart .state.active rect { fill: #ddf4ff; stroke: var(--active); stroke-width: 2.5; }
  svg.statechart .state.active text { fill: var(--active); font-weight: 700; }
  svg.statechart .edge { fill: none; stroke: #afb8c1; stroke-width: 1.2; }
  svg.statechart marker path { fill: #afb8c1; }
`;

/** The browser side: plain JavaScript, run as it is (the two drawing functions are inlined above it). */
const SCRIPT = `
  const MAX_EVENTS = ${MAX_EVENTS};
  const MAX_FINISHED = ${MAX_FINISHED};
  const actors = new Map();
  const finished = [];
  const tree = document.getElementById('tree');
  const empty = document.getElementById('empty');
  const connection = document.getElementById('connection');
  let scheduled = false;

  function leaves(value) {
    const paths = activeStatePaths(value);
    return paths.filter((path) => !paths.some((other) => other.startsWith(path + '.')));
  }

  function card(actor) {
    const section = document.createElement('section');
    section.className = 'actor';
    const title = document.createElement('div');
    title.className = 'title';
    for (const part of ['name', 'status', 'state']) {
      const span = document.createElement('span');
      span.className = part;
      title.append(span);
    }
    title.querySelector('.name').textContent = actor.name;
    const events = document.createElement('ol');
    events.className = 'events';
    const drawing = document.createElement('div');
    drawing.className = 'drawing';
    drawing.innerHTML = actor.definition ? statechartSvg(actor.definition, actor.name) : '';
    section.append(title, events, drawing);
    section.dataset.name = actor.name;
    return section;
  }

  function update(actor) {
    const el = actor.element;
    el.dataset.status = actor.status || 'active';
    el.querySelector('.status').textContent = actor.status || 'active';
    const current = leaves(actor.value);
    el.querySelector('.state').textContent = current.join(', ');
    el.dataset.state = current.join(',');
    const events = el.querySelector('.events');
    events.replaceChildren(...actor.events.map((type) => { const li = document.createElement('li'); li.textContent = type; return li; }));
    const active = new Set(activeStatePaths(actor.value));
    for (const node of el.querySelectorAll('g.state')) node.classList.toggle('active', active.has(node.dataset.path));
  }

  function render() {
    scheduled = false;
    const children = new Map();
    for (const actor of actors.values()) {
      const parent = actor.parentId && actors.has(actor.parentId) ? actor.parentId : '';
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(actor);
    }
    const ordered = [];
    const walk = (id, depth) => {
      for (const actor of children.get(id) || []) {
        ordered.push([actor, depth]);
        if (depth < 32) walk(actor.sessionId, depth + 1);
      }
    };
    walk('', 0);
    for (const [actor, depth] of ordered) {
      actor.element = actor.element || card(actor);
      actor.element.style.marginLeft = (depth * 24) + 'px';
      actor.element.dataset.depth = String(depth);
      update(actor);
      tree.append(actor.element);
    }
    for (const el of [...tree.children]) if (!ordered.some(([actor]) => actor.element === el)) el.remove();
    empty.hidden = actors.size > 0;
  }

  function schedule() {
    if (!scheduled) { scheduled = true; setTimeout(render, 50); }
  }

  function settle(actor) {
    if (actor.status === 'active' || actor.finished) return;
    actor.finished = true;
    finished.push(actor.sessionId);
    while (finished.length > MAX_FINISHED) actors.delete(finished.shift());
  }

  function receive(message) {
    if (!message || typeof message.sessionId !== 'string') return;
    const snapshot = message.snapshot || {};
    if (message.type === '@xstate.actor') {
      const known = actors.get(message.sessionId);
      if (known && known.element) known.element.remove();
      const actor = {
        sessionId: message.sessionId,
        name: String(message.name || message.sessionId),
        parentId: message.parentId,
        definition: typeof message.definition === 'string' ? message.definition : '',
        status: snapshot.status || 'active',
        value: snapshot.value,
        events: [],
      };
      actors.set(actor.sessionId, actor);
      settle(actor);
    } else if (message.type === '@xstate.snapshot') {
      const actor = actors.get(message.sessionId);
      if (!actor) return;
      actor.status = snapshot.status || actor.status;
      if (snapshot.value !== undefined) actor.value = snapshot.value;
      settle(actor);
    } else if (message.type === '@xstate.event') {
      const actor = actors.get(message.sessionId);
      if (!actor || !message.event) return;
      actor.events.push(String(message.event.type));
      if (actor.events.length > MAX_EVENTS) actor.events.shift();
    } else {
      return;
    }
    schedule();
  }

  const ws = new WebSocket('ws://' + location.host + '/');
  ws.onopen = () => { connection.textContent = 'connected to the runtime'; };
  ws.onmessage = (event) => { try { receive(JSON.parse(event.data)); } catch (error) { /* not the protocol */ } };
  ws.onclose = () => { connection.textContent = 'disconnected: the runtime closed the connection (reload when it runs again)'; connection.className = 'closed'; };

  const note = document.getElementById('stately-note');
  const link = document.getElementById('stately-link');
  const probe = new AbortController();
  const unreachable = () => {
    if (!link.hidden) return;
    note.className = 'unreachable';
    note.textContent = 'The Stately inspector (stately.ai) is not reachable from this browser (offline?); this page needs nothing from the internet.';
  };
  const timer = setTimeout(() => { probe.abort(); unreachable(); }, ${STATELY_PROBE_MS});
  fetch('${STATELY_INSPECTOR_URL}', { mode: 'no-cors', signal: probe.signal, referrerPolicy: 'no-referrer', credentials: 'omit' })
    .then(() => { clearTimeout(timer); link.hidden = false; note.textContent = ''; })
    .catch(() => { clearTimeout(timer); unreachable(); });
`;

export function inspectorPage(): ServedPage {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>mcp-actors inspector</title>
  <style nonce="${nonce}">${STYLE}</style>
</head>
<body>
  <header>
    <h1>mcp-actors inspector</h1>
    <span id="connection">connecting…</span>
    <span id="stately-note">Checking whether the Stately inspector is reachable…</span>
    <a id="stately-link" href="/stately" hidden>Open in the Stately inspector</a>
  </header>
  <main>
    <p id="empty">No actor yet.</p>
    <div id="tree"></div>
  </main>
  <script nonce="${nonce}">
${statechartSvg.toString()}
${activeStatePaths.toString()}
${SCRIPT}
  </script>
</body>
</html>`;
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `connect-src 'self' ${STATELY_INSPECTOR_URL}`,
    "img-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return { html, csp };
}
