import { describe, expect, it } from 'vitest';
import {
  MAX_TIMER_MS,
  SERVER_CONFIG_DEFAULTS,
  serverConfigSchema,
  validateServerConfig,
  type ValidateServerConfigOptions,
} from '../../../src/config/index.js';
import { type ConfigProblem, ErrorCode, isConfigError } from '../../../src/errors/index.js';
import { problemAt as problemIn } from '../../support/config-problems.js';
import { thrownBy } from '../../support/rejection.js';

const stdio = { name: 'everything', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] };

/** The problems of the ConfigError `input` throws; fails the test if it does not throw one. */
const problemsOf = (input: unknown, options?: ValidateServerConfigOptions): readonly ConfigProblem[] =>
  thrownBy(() => validateServerConfig(input, options), isConfigError, 'expected a ConfigError, but the configuration was accepted')
    .problems;

const problemAt = (input: unknown, path: string, options?: ValidateServerConfigOptions): ConfigProblem =>
  problemIn({ problems: problemsOf(input, options) }, path);

function messageOf(input: unknown): string {
  try {
    validateServerConfig(input);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('validateServerConfig resolves a valid configuration', () => {
  it('fills in every default from SERVER_CONFIG_DEFAULTS', () => {
    const config = validateServerConfig({ name: 'everything', command: 'npx' });
    expect(config).toEqual({
      name: 'everything',
      transport: 'stdio',
      command: 'npx',
      args: [],
      env: {},
      cwd: undefined,
      url: undefined,
      headers: {},
      roots: [],
      ...SERVER_CONFIG_DEFAULTS,
    });
  });

  it('applies exactly the defaults the schema documents, under their snake_case keys', () => {
    const properties = serverConfigSchema.properties as Record<
      string,
      { default?: unknown; properties?: Record<string, { default?: unknown }> }
    >;
    const config = validateServerConfig({ name: 'x', command: 'c' }) as unknown as Record<string, unknown>;
    for (const [key, schema] of Object.entries(properties)) {
      const camel = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
      if (schema.properties)
        for (const [inner, field] of Object.entries(schema.properties))
          expect((config[camel] as Record<string, unknown>)[inner.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())], inner).toEqual(
            field.default,
          );
      else if (schema.default !== undefined) expect(config[camel], key).toEqual(schema.default);
    }
    expect(SERVER_CONFIG_DEFAULTS).toMatchObject({
      maxRestarts: 5,
      backoff: { initialMs: 200, maxMs: 10_000 },
      maxMessageBytes: 16 * 1024 * 1024,
    });
  });

  it('keeps every value that is given', () => {
    const input = {
      ...stdio,
      env: { API_KEY: 'secret' },
      cwd: '/tmp',
      restart: 'transient',
      maxRestarts: 0,
      periodMs: 1000,
      backoff: { initialMs: 0, maxMs: 0, factor: 1, jitter: 0 },
      startTimeoutMs: 1,
      callTimeoutMs: 2,
      shutdownTimeoutMs: 3,
      idleStopMs: 4,
      pingIntervalMs: 5,
      maxMessageBytes: 1024,
      stderrLines: 0,
      trusted: true,
      roots: ['/srv/project'],
    } as const;
    expect(validateServerConfig(input)).toEqual({ ...input, transport: 'stdio', url: undefined, headers: {} });
  });

  it('merges a partial backoff with the default backoff', () => {
    const config = validateServerConfig({ ...stdio, backoff: { factor: 3 } });
    expect(config.backoff).toEqual({ ...SERVER_CONFIG_DEFAULTS.backoff, factor: 3 });
  });

  it('infers stdio from command and streamable-http from url', () => {
    expect(validateServerConfig(stdio).transport).toBe('stdio');
    expect(validateServerConfig({ name: 'remote', url: 'https://example.com/mcp' }).transport).toBe('streamable-http');
    expect(validateServerConfig({ name: 'old', transport: 'sse', url: 'http://localhost:3001/sse' }).transport).toBe('sse');
  });

  it('accepts headers on an http server and keeps them', () => {
    const config = validateServerConfig({ name: 'remote', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } });
    expect(config.headers).toEqual({ Authorization: 'Bearer x' });
    expect(config.command).toBeUndefined();
  });

  it('treats keys whose value is undefined as left out', () => {
    const config = validateServerConfig({ ...stdio, cwd: undefined, url: undefined, backoff: { maxMs: undefined } });
    expect(config.cwd).toBeUndefined();
    expect(config.backoff.maxMs).toBe(SERVER_CONFIG_DEFAULTS.backoff.maxMs);
  });

  it('returns a frozen config whose arrays and records are frozen copies', () => {
    const args = ['a'];
    const env = { A: '1' };
    const config = validateServerConfig({ name: 'x', command: 'c', args, env });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.args)).toBe(true);
    expect(Object.isFrozen(config.env)).toBe(true);
    expect(Object.isFrozen(config.headers)).toBe(true);
    expect(Object.isFrozen(config.backoff)).toBe(true);
    expect(config.args).not.toBe(args);
    expect(config.env).not.toBe(env);
    args.push('b');
    env.A = '2';
    expect(config.args).toEqual(['a']);
    expect(config.env).toEqual({ A: '1' });
  });

  it('never changes its input, even a deeply frozen one', () => {
    const input = { ...stdio, env: { A: '1' }, backoff: { factor: 3 } };
    const before = structuredClone(input);
    const frozen = Object.freeze({ ...input, args: Object.freeze([...input.args]), env: Object.freeze({ A: '1' }) });
    validateServerConfig(input);
    validateServerConfig(frozen);
    problemsOf({ ...input, comand: 'x', backoff: { jitter: 2 } });
    expect(input).toEqual(before);
  });

  it('reads only own keys, never inherited ones', () => {
    const input = Object.create({ command: 'inherited' }) as Record<string, unknown>;
    input.name = 'x';
    expect(problemAt(input, 'command').problem).toContain('needs either command');
  });
});

describe('validateServerConfig names each mistake, where it is and what to write instead', () => {
  it('suggests the right key for a typo', () => {
    expect(problemAt({ ...stdio, comand: 'npx' }, 'comand')).toMatchObject({
      problem: 'is not a known key',
      hint: 'did you mean "command"?',
    });
    expect(problemAt({ name: 'x', command: 'c', Args: [] }, 'Args').hint).toBe('did you mean "args"?');
    expect(problemAt({ ...stdio, evn: {} }, 'evn').hint).toBe('did you mean "env"?');
    expect(problemAt({ ...stdio, backoff: { factr: 2 } }, 'backoff.factr').hint).toBe('did you mean "factor"?');
  });

  it('points a snake_case key in TypeScript to its camelCase spelling', () => {
    expect(problemAt({ ...stdio, start_timeout_ms: 5000 }, 'start_timeout_ms').hint).toBe(
      'write "startTimeoutMs" (snake_case keys belong in agents.yaml)',
    );
    expect(problemAt({ ...stdio, max_restarts: 3 }, 'max_restarts').hint).toContain('"maxRestarts"');
    expect(problemAt({ ...stdio, idle_stop_ms: 0 }, 'idle_stop_ms').hint).toContain('"idleStopMs"');
    expect(problemAt({ ...stdio, backoff: { initial_ms: 1 } }, 'backoff.initial_ms').hint).toContain('"initialMs"');
  });

  it('maps words from other tools to ours', () => {
    expect(problemAt({ ...stdio, type: 'stdio' }, 'type').hint).toBe('did you mean "transport"?');
    expect(problemAt({ ...stdio, timeout: 5 }, 'timeout').hint).toBe('did you mean "callTimeoutMs" or "startTimeoutMs"?');
  });

  it('lists the allowed keys when nothing is close', () => {
    const hint = problemAt({ ...stdio, colour: 'blue' }, 'colour').hint ?? '';
    expect(hint).toContain('allowed keys: name, transport, command, args');
    expect(problemAt({ ...stdio, backoff: { speed: 1 } }, 'backoff.speed').hint).toBe('allowed keys: initialMs, maxMs, factor, jitter');
  });

  it('says a number written as a string should lose its quotes', () => {
    expect(problemAt({ ...stdio, startTimeoutMs: '5000' }, 'startTimeoutMs')).toEqual({
      path: 'startTimeoutMs',
      problem: 'must be a number, got "5000" (a string)',
      hint: 'write 5000 without quotes',
    });
    expect(problemAt({ ...stdio, callTimeoutMs: '30s' }, 'callTimeoutMs').hint).toBe(
      'write 30000 (milliseconds, a number without quotes or unit)',
    );
    expect(problemAt({ ...stdio, trusted: 'true' }, 'trusted').hint).toBe('write true without quotes');
  });

  it('explains other wrong types', () => {
    expect(problemAt({ ...stdio, stderrLines: 1.5 }, 'stderrLines').problem).toBe('must be a whole number, got 1.5 (a number)');
    expect(problemAt({ name: 'x', command: 'c', args: '--port 3000' }, 'args').hint).toContain('["--port","3000"]');
    expect(problemAt({ name: 'x', command: 'c', args: ['a', 'b', 3000] }, 'args.2')).toMatchObject({
      problem: 'must be a string, got 3000 (a number)',
      hint: 'write "3000" in quotes',
    });
    // An env value is secret: a problem there names its type, never the value.
    expect(problemAt({ ...stdio, env: { API_KEY: 123 } }, 'env.API_KEY')).toMatchObject({
      problem: 'must be a string, got [redacted] (a number)',
      hint: 'write "[redacted]" in quotes',
    });
    expect(problemAt({ ...stdio, env: ['A=1'] }, 'env').hint).toBe('write an object: {"A":"1"}');
    expect(problemAt({ name: 'x', command: ['npx', '-y', 'pkg'] }, 'command').hint).toBe(
      'put the program in command and the rest in args: command: "npx", args: ["-y","pkg"]',
    );
    expect(problemAt({ ...stdio, backoff: 5 }, 'backoff').problem).toBe('must be an object, got 5 (a number)');
  });

  it('suggests leaving out a key whose value is null (an empty YAML value)', () => {
    expect(problemAt({ ...stdio, idleStopMs: null }, 'idleStopMs').hint).toBe('leave the key out to use the default, 0');
  });

  it('asks for command or url when neither is given', () => {
    expect(problemAt({ name: 'x' }, 'command')).toMatchObject({
      problem: 'a server needs either command (stdio) or url (sse/streamable-http)',
    });
    expect(problemAt({ name: 'x', transport: 'stdio' }, 'command').problem).toBe('is required for transport "stdio"');
    expect(problemAt({ name: 'x', transport: 'sse' }, 'url').problem).toBe('is required for transport "sse"');
  });

  it('rejects keys of the other transport and says which transport they belong to', () => {
    expect(problemAt({ ...stdio, transport: 'stdio', url: 'http://localhost:3000' }, 'url')).toMatchObject({
      problem: 'belongs to transports "sse" and "streamable-http", not "stdio"',
      hint: 'remove url, or write transport: "streamable-http"',
    });
    expect(problemAt({ ...stdio, headers: { A: 'b' } }, 'headers').problem).toContain('because command is given');
    expect(problemAt({ name: 'x', url: 'http://h', cwd: '/tmp' }, 'cwd').problem).toContain('belongs to transport "stdio"');
    expect(problemAt({ name: 'x', transport: 'sse', url: 'http://h', command: 'c' }, 'command').hint).toBe(
      'remove command, or write transport: "stdio"',
    );
    expect(problemAt({ ...stdio, url: 'http://h' }, 'transport').problem).toContain('cannot be inferred');
    // The transports a key belongs to are read from its description in the schema ("streamable-http: …").
    expect(problemAt({ ...stdio, sseFallback: true }, 'sseFallback')).toMatchObject({
      problem: 'belongs to transport "streamable-http", not "stdio" (this server uses "stdio" because command is given)',
      hint: 'remove sseFallback, or write transport: "streamable-http"',
    });
  });

  it('accepts only http:// and https:// URLs that name a host', () => {
    expect(problemAt({ name: 'x', url: 'localhost:3000' }, 'url')).toEqual({
      path: 'url',
      problem: 'must be an http:// or https:// URL, got "localhost:3000" (a string)',
      hint: 'write "http://localhost:3000"',
    });
    expect(problemAt({ name: 'x', url: 'ws://h:3000' }, 'url').hint).toContain('WebSocket is not supported');
    expect(problemAt({ name: 'x', url: 'ftp://h' }, 'url').problem).toContain('http://');
    expect(problemAt({ name: 'x', url: 'http://' }, 'url').problem).toContain('http://');
    expect(problemsOf({ name: 'x', url: 'localhost:3000' })).toHaveLength(1);
  });

  it('rejects a negative timeout and says what 0 means where it means off', () => {
    expect(problemAt({ ...stdio, startTimeoutMs: -1 }, 'startTimeoutMs')).toMatchObject({
      problem: 'must be 1 or more, got -1', // a deadline of 0 is refused too
      hint: 'write a duration in milliseconds such as 30000',
    });
    expect(problemAt({ ...stdio, idleStopMs: -5 }, 'idleStopMs').hint).toBe('write 0 to never stop an idle server');
  });

  it('rejects a duration longer than a Node timer can wait', () => {
    expect(problemAt({ ...stdio, callTimeoutMs: MAX_TIMER_MS + 1 }, 'callTimeoutMs').problem).toContain('at most 2147483647');
    expect(validateServerConfig({ ...stdio, callTimeoutMs: MAX_TIMER_MS }).callTimeoutMs).toBe(MAX_TIMER_MS);
  });

  it('keeps backoff in range: jitter in [0, 1], factor at least 1, maxMs at least initialMs', () => {
    expect(problemAt({ ...stdio, backoff: { jitter: 2 } }, 'backoff.jitter')).toMatchObject({
      problem: 'must be between 0 and 1, got 2',
      hint: 'write a fraction such as 0.2 (a fifth of each delay is random)',
    });
    expect(problemAt({ ...stdio, backoff: { jitter: 20 } }, 'backoff.jitter').hint).toBe('write 0.2 for 20%');
    expect(problemAt({ ...stdio, backoff: { factor: 0.5 } }, 'backoff.factor').problem).toContain('must be 1 or more');
    expect(problemAt({ ...stdio, backoff: { initialMs: 500, maxMs: 100 } }, 'backoff.maxMs')).toEqual({
      path: 'backoff.maxMs',
      problem: 'must be at least initialMs (500), got 100',
      hint: 'raise maxMs to 500 or more, or lower initialMs',
    });
    expect(problemAt({ ...stdio, backoff: { maxMs: 100 } }, 'backoff.maxMs').problem).toContain('(200, the default)');
    expect(problemAt({ ...stdio, backoff: { initialMs: 20_000 } }, 'backoff.initialMs').problem).toBe(
      'must be at most maxMs (10000, the default), got 20000',
    );
  });

  it('says one thing about a confine value that fits none of its forms', () => {
    expect(problemsOf({ ...stdio, confine: 'yes' })).toEqual([
      { path: 'confine', problem: 'must be true or false, or an object, got "yes" (a string)', hint: 'write true without quotes' },
    ]);
    expect(problemsOf({ ...stdio, confine: { network: 'some' } })).toEqual([
      { path: 'confine.network', problem: 'must be one of "all" or "none", got "some" (a string)', hint: 'did you mean "none"?' },
    ]);
    expect(problemsOf({ ...stdio, confine: { network: [1] } }).map((p) => p.path)).toEqual(['confine.network.0']);
  });

  it('rejects a message limit under 1 KiB', () => {
    expect(problemAt({ ...stdio, maxMessageBytes: 16 }, 'maxMessageBytes')).toMatchObject({
      problem: 'must be 1024 or more, got 16',
      hint: 'write a size in bytes such as 16777216 (16 MiB, the default)',
    });
  });

  it('lists the allowed restart policies and translates the usual words', () => {
    expect(problemAt({ ...stdio, restart: 'always' }, 'restart')).toEqual({
      path: 'restart',
      problem: 'must be one of "permanent", "transient" or "temporary", got "always" (a string)',
      hint: 'use "permanent" (always restart)',
    });
    expect(problemAt({ ...stdio, restart: 'on-failure' }, 'restart').hint).toContain('"transient"');
    expect(problemAt({ ...stdio, restart: 'never' }, 'restart').hint).toContain('"temporary"');
    expect(problemAt({ ...stdio, restart: 'transiant' }, 'restart').hint).toBe('did you mean "transient"?');
    expect(problemAt({ ...stdio, restart: 'Permanent' }, 'restart').hint).toBe('write "permanent"');
  });

  it('lists the allowed transports and suggests the nearest', () => {
    expect(problemAt({ name: 'x', transport: 'http', url: 'http://h' }, 'transport').hint).toContain('use "streamable-http"');
    expect(problemAt({ name: 'x', transport: 'streamableHttp', url: 'http://h' }, 'transport').hint).toBe('write "streamable-http"');
    expect(problemsOf({ name: 'x', transport: 'http', url: 'http://h' })).toHaveLength(1);
  });

  it('explains the name rule', () => {
    expect(problemAt({ ...stdio, name: 'my server' }, 'name')).toEqual({
      path: 'name',
      problem: 'must be a server name: letters, digits, ".", "_" and "-", starting with a letter or digit, got "my server" (a string)',
      hint: 'write "my-server"',
    });
    expect(problemAt({ ...stdio, name: '' }, 'name').problem).toBe('must not be empty');
    expect(problemAt({ command: 'npx' }, 'name').problem).toBe('is required');
    expect(validateServerConfig({ ...stdio, name: 'fs.home_2-b' }).name).toBe('fs.home_2-b');
  });

  it('reports one problem at the root for input that is not an object', () => {
    for (const input of [null, undefined, [], 'npx server', 42]) {
      const problems = problemsOf(input);
      expect(problems).toHaveLength(1);
      expect(problems[0]?.path).toBe('');
      expect(problems[0]?.problem).toContain('must be an object describing one server');
    }
    expect(problemsOf(null, { pathPrefix: 'servers.github' })[0]?.path).toBe('servers.github');
  });

  it('lists every mistake at once, not just the first', () => {
    const problems = problemsOf({
      name: 'bad name',
      comand: 'npx',
      startTimeoutMs: '5000',
      restart: 'always',
      backoff: { jitter: 2 },
    });
    expect(problems.map((p) => p.path).sort()).toEqual(['backoff.jitter', 'comand', 'command', 'name', 'restart', 'startTimeoutMs']);
  });

  it('prefixes every path with pathPrefix and names the subject', () => {
    const problems = problemsOf({ ...stdio, backoff: { factor: 0 }, env: { A: 1 } }, { pathPrefix: 'servers.github' });
    expect(problems.map((p) => p.path)).toEqual(['servers.github.env.A', 'servers.github.backoff.factor']);
    expect(messageOf({ ...stdio, comand: 'x' })).toMatch(/^invalid configuration of server "everything" \(1 problem\):/);
    expect(() => validateServerConfig({ ...stdio, comand: 'x' }, { subject: 'server "github" in agents.yaml' })).toThrow(
      /^invalid server "github" in agents.yaml \(1 problem\)/,
    );
  });

  it('quotes keys that are not plain words in brackets', () => {
    expect(problemAt({ ...stdio, env: { 'A=B': 'x' } }, 'env["A=B"]').problem).toBe('is not a valid name for an environment variable');
    expect(problemAt({ name: 'x', url: 'http://h', headers: { 'X Bad': 'v' } }, 'headers["X Bad"]').problem).toContain('HTTP header');
    expect(problemAt({ name: 'x', url: 'http://h', headers: { A: 'a\r\nB: b' } }, 'headers.A').problem).toContain('line breaks');
  });

  it('throws a ConfigError with code CONFIG_INVALID', () => {
    try {
      validateServerConfig({ name: 'x' });
      expect.unreachable();
    } catch (error) {
      expect(isConfigError(error)).toBe(true);
      expect((error as { code: string }).code).toBe(ErrorCode.CONFIG_INVALID);
    }
  });
});

describe('validateServerConfig with keyStyle snake_case quotes the YAML file back', () => {
  it('writes paths and hints with snake_case keys', () => {
    const yaml = { name: 'x', command: 'c', start_timeout_ms: '5000', backoff: { initial_ms: 500, max_ms: 100 }, stderr_line: 3 };
    const options = { keyStyle: 'snake_case', pathPrefix: 'servers.x' } as const;
    const problems = problemsOf(yaml, options);
    expect(problems).toContainEqual({
      path: 'servers.x.start_timeout_ms',
      problem: 'must be a number, got "5000" (a string)',
      hint: 'write 5000 without quotes',
    });
    expect(problems).toContainEqual({
      path: 'servers.x.backoff.max_ms',
      problem: 'must be at least initial_ms (500), got 100',
      hint: 'raise max_ms to 500 or more, or lower initial_ms',
    });
    expect(problems).toContainEqual({ path: 'servers.x.stderr_line', problem: 'is not a known key', hint: 'did you mean "stderr_lines"?' });
  });

  it('refuses a camelCase key in a file entry, pointing to its snake_case spelling', () => {
    const problems = problemsOf({ ...stdio, max_restarts: 1, maxRestarts: 2 }, { keyStyle: 'snake_case' });
    expect(problems).toEqual([{ path: 'maxRestarts', problem: 'is not a known key', hint: 'did you mean "max_restarts"?' }]);
    expect(problemAt({ ...stdio, startTimeoutMs: 5 }, 'startTimeoutMs', { keyStyle: 'snake_case' }).hint).toBe(
      'did you mean "start_timeout_ms"?',
    );
  });
});

describe('validateServerConfig against prototype pollution', () => {
  it('rejects __proto__ and constructor keys and never merges them', () => {
    const input: unknown = JSON.parse(
      '{"name":"x","command":"c","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},' +
        '"backoff":{"__proto__":{"polluted":"yes"}},"env":{"__proto__":"yes"},"headers":{"__proto__":"yes"}}',
    );
    const paths = problemsOf(input).map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['__proto__', 'constructor', 'backoff.__proto__', 'env.__proto__', 'headers.__proto__']));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not copy a __proto__ key of a file entry either', () => {
    const input: unknown = JSON.parse('{"name":"x","command":"c","__proto__":{"polluted":"yes"}}');
    expect(problemsOf(input, { keyStyle: 'snake_case' }).map((p) => p.path)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports a value without a prototype in either key style (a file entry once threw a TypeError here)', () => {
    const input = { name: 'x', command: 'c', args: Object.create(null) as object };
    for (const keyStyle of ['camelCase', 'snake_case'] as const) {
      expect(problemsOf(input, { keyStyle })).toEqual([{ path: 'args', problem: 'must be a list, got an object' }]);
    }
  });
});

describe('deadlines', () => {
  it('refuses a start or call deadline of 0, which would fail every start or call at once', () => {
    for (const key of ['startTimeoutMs', 'callTimeoutMs'] as const) {
      expect(() => validateServerConfig({ name: 'x', command: 'node', [key]: 0 })).toThrow(key);
    }
  });
});
