/**
 * The statechart drawing the inspector page runs in the browser: one node per state (nested ones
 * too), arrows for transitions whatever the target syntax, layers from the initial state, and the
 * active states of a snapshot value. The page runs these functions from their source text, so one
 * test runs that text too.
 */
import { describe, expect, it } from 'vitest';
import { activeStatePaths, statechartSvg } from '../../../src/inspector/statechart-drawing.js';

const machine = {
  id: 'server',
  initial: 'stopped',
  states: {
    stopped: { on: { 'server.start': 'starting' } },
    starting: {
      initial: 'connecting',
      states: {
        connecting: { invoke: { src: 'connect', onDone: '#server.running', onError: 'failing' } },
        failing: { after: { backoff: 'connecting' } },
      },
    },
    running: {
      id: 'up',
      initial: 'idle',
      states: { idle: { on: { 'tool.call': 'busy' } }, busy: { always: [{ target: 'idle' }] } },
      on: { 'server.stop': { target: 'stopping' } },
    },
    stopping: { on: { 'transport.closed': ['stopped'] } },
    error: { on: { retry: { target: '#up.idle' } } },
  },
};

const nodesOf = (svg: string): string[] => [...svg.matchAll(/<g class="state" data-path="([^"]*)"/g)].map((m) => m[1]!);
const edgesOf = (svg: string): string[] => [...svg.matchAll(/<path class="edge"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]!);

describe('statechartSvg', () => {
  it('draws one node per state, nested states by their path', () => {
    const svg = statechartSvg(JSON.stringify(machine), 'server');
    expect(nodesOf(svg).sort()).toEqual(
      [
        'error',
        'running',
        'running.busy',
        'running.idle',
        'starting',
        'starting.connecting',
        'starting.failing',
        'stopped',
        'stopping',
      ].sort(),
    );
  });

  it('draws an arrow for every kind of transition and target: sibling, #machine.path, #id.path, after, always, invoke', () => {
    const labels = edgesOf(statechartSvg(JSON.stringify(machine), 'server'));
    expect(labels).toEqual(
      expect.arrayContaining([
        'server.start',
        'done',
        'error',
        'after backoff',
        'tool.call',
        'always',
        'server.stop',
        'transport.closed',
        'retry',
      ]),
    );
  });

  it('puts the initial state in the first layer and what it leads to right of it', () => {
    const svg = statechartSvg(JSON.stringify(machine), 'server');
    const x = (path: string): number => Number(new RegExp(`data-path="${path.replace('.', '\\.')}"><rect x="([\\d.]+)"`).exec(svg)![1]);
    expect(x('stopped')).toBeLessThan(x('starting'));
    expect(x('starting')).toBeLessThan(x('starting.connecting'));
    expect(x('starting.connecting')).toBeLessThan(x('running'));
  });

  it('escapes names, and draws nothing for a definition without states or not JSON', () => {
    const svg = statechartSvg(JSON.stringify({ id: 'x', initial: '<b>', states: { '<b>': {} } }), '<script>');
    expect(svg).toContain('data-path="&#60;b&#62;"');
    expect(svg).not.toContain('<script>');
    expect(statechartSvg(JSON.stringify({ id: 'promise' }), 'p')).toBe('');
    expect(statechartSvg('not json', 'p')).toBe('');
  });

  it('works from its own source text, as the page runs it', () => {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluating the function's own source text, as the inspector page does, is what this test checks
    const load = new Function(`${statechartSvg.toString()}; return statechartSvg;`) as () => typeof statechartSvg;
    const fromSource = load();
    expect(fromSource(JSON.stringify(machine), 'server')).toBe(statechartSvg(JSON.stringify(machine), 'server'));
  });
});

describe('activeStatePaths', () => {
  it('lists every active state of a snapshot value, compound ones included', () => {
    expect(activeStatePaths('idle')).toEqual(['idle']);
    expect(activeStatePaths({ running: 'idle' })).toEqual(['running', 'running.idle']);
    expect(activeStatePaths({ a: { b: 'c' }, d: 'e' })).toEqual(['a', 'a.b', 'a.b.c', 'd', 'd.e']);
    expect(activeStatePaths(undefined)).toEqual([]);
  });
});
