import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_CONFIG_DEFAULTS, parseMcpServersJson } from '../../../src/config/index.js';
import { jsonSyntaxError } from '../../../src/config/json-syntax.js';
import { type ConfigError, isConfigError } from '../../../src/errors/index.js';
import { problemAt } from '../../support/config-problems.js';
import { thrownBy } from '../../support/rejection.js';
import { stringContaining } from '../../support/matchers.js';

const CLAUDE_DESKTOP_CONFIG = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/Users/me/Downloads"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "\${GITHUB_TOKEN}" }
    },
    "linear": {
      "url": "https://mcp.linear.app/mcp",
      "headers": { "Authorization": "Bearer \${LINEAR_KEY:-none}" }
    }
  },
  "globalShortcut": "Ctrl+Space"
}
`;

const errorOf = (text: string, env: Record<string, string | undefined> = {}): ConfigError =>
  thrownBy(
    () => parseMcpServersJson(text, { file: 'claude_desktop_config.json', env }),
    isConfigError,
    'expected a ConfigError, but the JSON was accepted',
  );

const defaults = {
  cwd: undefined,
  url: undefined,
  command: undefined,
  headers: {},
  env: {},
  args: [],
  roots: [],
  ...SERVER_CONFIG_DEFAULTS,
};

describe('parseMcpServersJson imports Claude Desktop mcpServers', () => {
  it('turns two stdio servers and one url server into server configurations', () => {
    const servers = parseMcpServersJson(CLAUDE_DESKTOP_CONFIG, { env: { GITHUB_TOKEN: 'ghp_x' } });
    expect(servers).toEqual({
      filesystem: {
        ...defaults,
        name: 'filesystem',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop', '/Users/me/Downloads'],
      },
      github: {
        ...defaults,
        name: 'github',
        transport: 'stdio',
        command: 'docker',
        args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' },
      },
      linear: {
        ...defaults,
        name: 'linear',
        transport: 'streamable-http',
        url: 'https://mcp.linear.app/mcp',
        headers: { Authorization: 'Bearer none' },
        sseFallback: true,
      },
    });
  });

  it('reads "type" (and "transport") to pick sse or http, and skips disabled servers', () => {
    const servers = parseMcpServersJson(
      JSON.stringify({
        mcpServers: {
          old: { type: 'sse', url: 'http://localhost:3001/sse' },
          viaTransport: { transport: 'sse', url: 'http://localhost:3001/sse' },
          http: { type: 'http', url: 'http://localhost:3001/mcp' },
          local: { type: 'stdio', command: 'node', args: ['server.js'] },
          off: { command: 'node', disabled: true, env: { A: '${UNSET}' } },
          tuned: { command: 'node', restart: 'transient', startTimeoutMs: 5000 },
        },
      }),
      { env: {} },
    );
    expect(Object.keys(servers)).toEqual(['old', 'viaTransport', 'http', 'local', 'tuned']);
    expect(servers.old?.transport).toBe('sse');
    expect(servers.viaTransport?.transport).toBe('sse');
    expect(servers.http?.transport).toBe('streamable-http');
    expect(servers.local?.transport).toBe('stdio');
    expect(servers.tuned).toMatchObject({ restart: 'transient', startTimeoutMs: 5000 });
  });

  it('imports the example file shipped in examples/', () => {
    const servers = parseMcpServersJson(readFileSync('examples/claude_desktop_config.json', 'utf8'), { env: {} });
    expect(Object.keys(servers)).toEqual(['memory', 'filesystem', 'everything']);
    expect(servers.filesystem?.args.at(-1)).toBe('${SANDBOX_ROOT}');
    expect(servers.everything).toMatchObject({ transport: 'streamable-http', headers: { Authorization: 'Bearer demo' } });
  });

  it('accepts an empty mcpServers object', () => {
    expect(parseMcpServersJson('{ "mcpServers": {} }')).toEqual({});
  });
});

describe('parseMcpServersJson reports mistakes with path, file:line:col and a hint', () => {
  it('reports unknown keys like agents.yaml does', () => {
    const problem = problemAt(errorOf('{\n  "mcpServers": {\n    "a": { "comand": "npx" }\n  }\n}'), 'mcpServers.a.comand');
    expect(problem).toEqual({
      path: 'mcpServers.a.comand',
      problem: 'claude_desktop_config.json:3:12: is not a known key',
      hint: 'did you mean "command"?',
    });
  });

  it('reports a missing command and an unknown type', () => {
    const error = errorOf('{"mcpServers": {"a": {"args": []}, "b": {"type": "ws", "url": "http://h"}}}');
    expect(problemAt(error, 'mcpServers.a.command').problem).toContain('a server needs either command (stdio) or url');
    expect(problemAt(error, 'mcpServers.b.type')).toMatchObject({
      problem: stringContaining('must be one of "stdio", "sse" or "http", got "ws"'),
    });
  });

  it('reports type and transport that disagree', () => {
    const error = errorOf('{"mcpServers": {"a": {"type": "sse", "transport": "streamable-http", "url": "http://h"}}}');
    expect(problemAt(error, 'mcpServers.a.transport').hint).toBe('keep only one of type and transport');
  });

  it('resolves environment references the same way, reporting a missing one at its key', () => {
    const problem = problemAt(errorOf(CLAUDE_DESKTOP_CONFIG), 'mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN');
    expect(problem.problem).toBe('claude_desktop_config.json:10:16: GITHUB_TOKEN is not set in the environment');
  });

  it('asks for mcpServers when it is missing or of the wrong type', () => {
    expect(problemAt(errorOf('{"globalShortcut": ""}'), '').problem).toBe('claude_desktop_config.json:1:1: has no "mcpServers"');
    expect(problemAt(errorOf('{"servers": {}}'), '').hint).toContain('rename "servers" to "mcpServers"');
    expect(problemAt(errorOf('{"mcpServers": []}'), 'mcpServers').problem).toContain('must be an object of servers by name, got a list');
    expect(problemAt(errorOf('[]'), '').problem).toContain('must be a JSON object');
    expect(problemAt(errorOf('  \n'), '').problem).toBe('claude_desktop_config.json:1:1: is empty');
  });

  it('gives a JSON syntax error its line and column and the likely cause', () => {
    const trailing = errorOf('{\n  "mcpServers": {\n    "a": { "command": "npx", }\n  }\n}');
    expect(trailing.problems).toEqual([
      {
        path: '',
        problem: 'claude_desktop_config.json:3:28: is not valid JSON: a comma before "}"',
        hint: 'remove the trailing comma: JSON does not allow one',
      },
    ]);
    expect(errorOf('{\n  // servers\n  "mcpServers": {}\n}').problems[0]?.problem).toBe(
      'claude_desktop_config.json:2:3: is not valid JSON: a comment',
    );
    expect(errorOf('{"a": 1\n "b": 2}').problems[0]?.hint).toBe('separate the entries with commas');
    expect(errorOf("{'mcpServers': {}}").problems[0]?.hint).toBe('JSON keys use double quotes: "key"');
    expect(errorOf('{"mcpServers": {"a": {"cwd": "C:\\Users"}}}').problems[0]?.hint).toContain('write \\\\ for a backslash');
  });
});

describe('jsonSyntaxError', () => {
  it('accepts what JSON.parse accepts', () => {
    for (const text of ['{}', '[]', '"x"', '0', '-1.5e3', 'true', 'null', '{"a": [1, {"b": "\\u00e9\\n"}]}', ' \t\n{ } \n']) {
      expect(jsonSyntaxError(text), text).toBeUndefined();
      expect((): unknown => JSON.parse(text)).not.toThrow();
    }
  });

  it('finds what JSON.parse rejects', () => {
    for (const text of ['', '{', '{"a"}', '{"a": }', '[1,]', '[1 2]', '{a: 1}', "'x'", '01', '{"a": 1} x', '"\n"', '"\\x"', 'tru']) {
      expect(jsonSyntaxError(text), text).toBeDefined();
      expect((): unknown => JSON.parse(text), text).toThrow();
    }
  });
});
