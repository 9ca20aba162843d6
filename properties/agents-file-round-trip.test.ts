/**
 * Law: any agents.yaml content the schema accepts, written into a file by the editing commands'
 * writer (`applyYamlEdits`, into the commented starter file), loads back as the same
 * configuration as the data itself — and the file's own comments survive.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { STARTER_FILE } from '../src/cli/init-command.js';
import { agentsConfigFromObject, parseAgentsConfig } from '../src/config/agents-file.js';
import { type YamlEdit, applyYamlEdits } from '../src/cli/yaml-edit.js';
import { isConfigError } from '../src/errors/index.js';

const BASE_DIR = '/srv/agents';
/** Text of any kind (quotes, colons, #, newlines, unicode), but never a `${` reference. */
const text = fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }).filter((s) => !s.includes('$') && !s.includes('\u0000'));
const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/);
const envName = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/);
const headerName = fc.stringMatching(/^X-[A-Za-z0-9-]{1,8}$/);
const headerValue = text.filter((s) => !/[\r\n]/.test(s));
const ms = fc.integer({ min: 1, max: 2_147_483_647 });

const common = fc.record(
  {
    restart: fc.constantFrom('permanent', 'transient', 'temporary'),
    max_restarts: fc.nat({ max: 100 }),
    period_ms: fc.nat({ max: 1_000_000 }),
    start_timeout_ms: ms,
    call_timeout_ms: ms,
    idle_stop_ms: fc.nat({ max: 1_000_000 }),
    trusted: fc.boolean(),
    backoff: fc
      .record({
        initial_ms: fc.nat({ max: 10_000 }),
        extra: fc.nat({ max: 10_000 }),
        factor: fc.double({ min: 1, max: 5, noNaN: true }),
        jitter: fc.double({ min: 0, max: 1, noNaN: true }),
      })
      .map(({ initial_ms, extra, factor, jitter }) => ({ initial_ms, max_ms: initial_ms + extra, factor, jitter })),
    roots: fc.array(
      text.map((s) => `/${s}`),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: [] },
);

const stdio = fc.record(
  {
    command: text,
    args: fc.array(text, { maxLength: 3 }),
    env: fc.dictionary(envName, text, { maxKeys: 3 }),
    cwd: text,
  },
  { requiredKeys: ['command'] },
);
const http = fc.record(
  {
    url: fc
      .tuple(fc.integer({ min: 1, max: 65535 }), fc.stringMatching(/^[a-z0-9/]{0,8}$/))
      .map(([port, path]) => `http://127.0.0.1:${port}/${path}`),
    transport: fc.constantFrom('sse', 'streamable-http'),
    headers: fc.dictionary(headerName, headerValue, { maxKeys: 2 }),
  },
  { requiredKeys: ['url'] },
);
const server = fc.tuple(fc.oneof(stdio, http), common).map(([a, b]) => ({ ...a, ...b }));

const file = fc
  .record({
    servers: fc.dictionary(name, server, { minKeys: 1, maxKeys: 3 }),
    description: fc.option(text, { nil: undefined }),
    execute: fc.constantFrom('allow', 'ask', 'deny'),
  })
  .map(({ servers, description, execute }) => {
    const names = Object.keys(servers);
    return {
      servers,
      skills: { work: { ...(description === undefined ? {} : { description }), mcp_servers: names } },
      actors: { helper: { skills: ['work'], permissions: { execute } } },
    };
  });

function accepted(data: unknown): boolean {
  try {
    agentsConfigFromObject(data, { env: {}, baseDir: BASE_DIR });
    return true;
  } catch (error) {
    if (isConfigError(error)) return false;
    throw error;
  }
}

describe('agents.yaml written by the editing commands', () => {
  it('loads back as exactly the configuration that was written', () => {
    fc.assert(
      fc.property(file, (data) => {
        fc.pre(accepted(data));
        const edits: YamlEdit[] = [
          ...Object.entries(data.servers).map(([key, value]): YamlEdit => ({ op: 'set', path: ['servers', key], value })),
          { op: 'set', path: ['skills', 'work'], value: data.skills.work },
          { op: 'set', path: ['actors', 'helper'], value: data.actors.helper },
        ];
        const written = applyYamlEdits(STARTER_FILE, edits);
        expect(parse(written)).toEqual({ ...data, tools: null });
        expect(parseAgentsConfig(written, { env: {}, baseDir: BASE_DIR })).toEqual(
          agentsConfigFromObject(data, { env: {}, baseDir: BASE_DIR }),
        );
        for (const line of STARTER_FILE.split('\n').filter((l) => l.trimStart().startsWith('#'))) expect(written).toContain(line);
      }),
      { numRuns: 150 },
    );
  });

  it('removing what was added gives back the file byte for byte', () => {
    fc.assert(
      fc.property(file, (data) => {
        fc.pre(accepted(data));
        const names = Object.keys(data.servers);
        const added = applyYamlEdits(
          STARTER_FILE,
          names.map((key): YamlEdit => ({ op: 'set', path: ['servers', key], value: data.servers[key] })),
        );
        const removed = applyYamlEdits(
          added,
          names.map((key): YamlEdit => ({ op: 'delete', path: ['servers', key] })),
        );
        // The emptied section reads `servers: {}`; everything else is the starter, byte for byte.
        expect(removed.replace('servers: {}\n', 'servers:\n')).toBe(STARTER_FILE);
      }),
      { numRuns: 100 },
    );
  });
});
