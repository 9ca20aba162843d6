/**
 * The runtime's inspector page in a real browser (Debian's headless Chromium), offline: a running
 * runtime with an actor that made a call; the page shows the runtime, the actor and its server
 * with their current states, and each statechart drawing has one node per state with the current
 * one highlighted. One screenshot goes to docs/inspector.png.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeStatePaths } from '../../src/inspector/statechart-drawing.js';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { connectViewer, waitForActors, type Viewer } from '../support/inspector-viewer.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

function chromiumPath(): string {
  for (const candidate of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('which', [candidate], { encoding: 'utf8' }).trim();
    } catch {
      // try the next name
    }
  }
  throw new Error('Chromium is not installed: apt-get install -y chromium');
}

/** Runs headless Chromium on `url` with no network but loopback, and returns its stdout (async: the runtime serves the page from this process). */
async function chromium(url: string, extra: string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'mcp-actors-chromium-'));
  try {
    const { stdout } = await promisify(execFile)(
      chromiumPath(),
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        // Only loopback: stately.ai is as unreachable as on a machine without internet.
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
        '--virtual-time-budget=10000',
        ...extra,
        url,
      ],
      { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Every state path of a machine definition (one per state, nested ones too). */
function statePaths(definition: string): string[] {
  const paths: string[] = [];
  const visit = (config: { states?: Record<string, unknown> }, prefix: string): void => {
    for (const [key, child] of Object.entries(config.states ?? {})) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      paths.push(path);
      visit(child as { states?: Record<string, unknown> }, path);
    }
  };
  visit(JSON.parse(definition) as { states?: Record<string, unknown> }, '');
  return paths;
}

/** The card of one actor in the dumped DOM: its attributes, and its drawing's nodes. */
function cardOf(dom: string, name: string): { status: string; state: string; nodes: string[]; active: string[]; events: string[] } {
  const start = dom.indexOf(`data-name="${name}"`);
  expect(start, `a card for ${name}`).toBeGreaterThan(-1);
  const open = dom.lastIndexOf('<section', start);
  const end = dom.indexOf('</section>', start);
  const html = dom.slice(open, end);
  const attribute = (key: string): string => new RegExp(`data-${key}="([^"]*)"`).exec(html.slice(0, html.indexOf('>')))?.[1] ?? '';
  const nodes = [...html.matchAll(/<g class="state( active)?" data-path="([^"]*)"/g)];
  return {
    status: attribute('status'),
    state: attribute('state'),
    nodes: nodes.map((m) => m[2]!),
    active: nodes.filter((m) => m[1] !== undefined).map((m) => m[2]!),
    events: [...html.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => m[1]!),
  };
}

// Unset in afterAll when beforeAll failed before them.
let runtime: Runtime | undefined;
let viewer: Viewer | undefined;
beforeAll(async () => {
  const fixture = { command: process.execPath, args: [fixtureServerPath()] };
  runtime = await createRuntime({
    config: {
      servers: { files: fixture },
      skills: { work: { mcp_servers: ['files'] } },
      actors: { triager: { skills: ['work'], permissions: { execute: 'allow' } } },
    },
    inspect: { port: 0, print: false },
  });
  const triager = await runtime.activate('triager', { tenant: 'acme' });
  expect((await triager.call('files/echo', { message: 'hello' })).status).toBe('committed');
  viewer = await connectViewer(runtime.inspector!.wsUrl);
  await waitForActors(viewer, ['runtime', 'actor:triager:acme', 'server:files:acme']);
});
afterAll(async () => {
  viewer?.close();
  await runtime?.shutdown();
});

describe('the inspector page in headless Chromium, without internet', () => {
  it('shows the runtime, the actor and its server with their current states, each drawn with one node per state and the current one highlighted', async () => {
    const dom = await chromium(runtime!.inspector!.url, ['--dump-dom']);
    expect(dom).toContain('connected to the runtime');
    for (const name of ['runtime', 'actor:triager:acme', 'server:files:acme']) {
      const announced = viewer!.messages.find((m) => m.type === '@xstate.actor' && m.name === name)!;
      const card = cardOf(dom, name);
      expect(card.status).toBe('active');
      // One node per state of the machine, and the highlighted ones are the states it is in.
      expect(card.nodes.sort()).toEqual(statePaths(String(announced.definition)).sort());
      expect(card.active.sort()).toEqual(activeStatePaths(announced.snapshot?.value).sort());
      expect(card.active.length).toBeGreaterThan(0);
      expect(card.state).not.toBe('');
    }
    expect(cardOf(dom, 'server:files:acme').state).toBe('running.idle');
    expect(cardOf(dom, 'actor:triager:acme').state).toBe('active');
    // stately.ai is not reachable here: the page says so instead of staying blank.
    expect(dom).toContain('The Stately inspector (stately.ai) is not reachable from this browser');
  });

  it('saves a screenshot to docs/inspector.png', async () => {
    const file = join(repoRoot, 'docs', 'inspector.png');
    await chromium(runtime!.inspector!.url, [`--screenshot=${file}`, '--window-size=1280,1000']);
    expect(statSync(file).size).toBeGreaterThan(10_000);
  });
});
