import { placeServer } from '../../../src/config/server-paths.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { literalSecrets, serversSection, serversYaml } from '../../../src/cli/servers-yaml.js';
import { parseAgentsConfig } from '../../../src/config/agents-file.js';
import { parseMcpServersJson } from '../../../src/config/mcp-servers-json.js';

const CLAUDE = JSON.stringify({
  mcpServers: {
    memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
    github: { command: 'docker', args: ['run', '-i', 'ghcr.io/github/github-mcp-server'], env: { GITHUB_TOKEN: 'ghp_x', LOG: 'debug' } },
    remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t' } },
    legacy: { type: 'sse', url: 'https://example.com/sse' },
    tuned: { command: 'y', restart: 'transient', startTimeoutMs: 5000, backoff: { initialMs: 50 } },
  },
});

describe('serversSection', () => {
  it('writes snake_case keys and only what differs from the defaults', () => {
    const section = serversSection(parseMcpServersJson(CLAUDE));
    expect(section).toEqual({
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
      github: { command: 'docker', args: ['run', '-i', 'ghcr.io/github/github-mcp-server'], env: { GITHUB_TOKEN: 'ghp_x', LOG: 'debug' } },
      remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t' } },
      legacy: { transport: 'sse', url: 'https://example.com/sse' },
      tuned: { command: 'y', restart: 'transient', backoff: { initial_ms: 50 }, start_timeout_ms: 5000 },
    });
  });

  it('writes sse_fallback: false after the url it is about, for a "type": "http" entry', () => {
    const entry = serversSection(
      parseMcpServersJson(JSON.stringify({ mcpServers: { proj: { type: 'http', url: 'http://127.0.0.1:5/mcp' } } })),
    ).proj;
    expect(Object.entries(entry ?? {})).toEqual([
      ['url', 'http://127.0.0.1:5/mcp'],
      ['sse_fallback', false],
    ]);
  });

  it('round-trips: the YAML loads as an agents.yaml with the same servers', () => {
    const servers = parseMcpServersJson(CLAUDE);
    const yaml = serversYaml(serversSection(servers), ['imported']);
    expect(yaml.startsWith('# imported\nservers:\n')).toBe(true);
    // Loaded from a file, a stdio server runs in the file's folder (here, with no file, the working directory).
    const placed = Object.fromEntries(Object.entries(servers).map(([name, config]) => [name, placeServer(config, process.cwd())]));
    expect(parseAgentsConfig(yaml).servers).toEqual(placed);
  });

  it('writes an empty section as servers: {}', () => {
    expect(parse(serversYaml({}))).toEqual({ servers: {} });
  });
});

describe('literalSecrets', () => {
  it('names env and header entries named like secrets that hold a literal value', () => {
    const section = serversSection(parseMcpServersJson(CLAUDE));
    expect(literalSecrets(section)).toEqual(['servers.github.env.GITHUB_TOKEN', 'servers.remote.headers.Authorization']);
    expect(literalSecrets({ a: { env: { API_KEY: '${API_KEY}' } } })).toEqual([]);
  });
});
