import { describe, expect, it } from 'vitest';
import { RUNTIME_PLACEHOLDERS, expandEnvReferences, parseAgentsConfig, resolveEnvReferences } from '../../../src/config/index.js';
import { isConfigError } from '../../../src/errors/index.js';

const expand = (text: string, env: Record<string, string | undefined> = {}) => expandEnvReferences(text, env);

describe('expandEnvReferences', () => {
  it('fills in a variable that is set, anywhere in the string', () => {
    expect(expand('${TOKEN}', { TOKEN: 'abc' })).toEqual({ value: 'abc', problems: [] });
    expect(expand('Bearer ${TOKEN}!', { TOKEN: 'abc' }).value).toBe('Bearer abc!');
    expect(expand('${A}-${B}', { A: '1', B: '2' }).value).toBe('1-2');
    expect(expand('${EMPTY}', { EMPTY: '' })).toEqual({ value: '', problems: [] });
  });

  it('reports a variable that is not set, naming it', () => {
    const { value, problems } = expand('Bearer ${GITHUB_TOKEN}');
    expect(value).toBe('Bearer ${GITHUB_TOKEN}');
    expect(problems).toEqual([
      {
        problem: 'GITHUB_TOKEN is not set in the environment',
        hint: 'export it, or remove the reference (${GITHUB_TOKEN:-text} gives a default)',
        unset: 'GITHUB_TOKEN',
      },
    ]);
  });

  it('uses the default of ${NAME:-default} when the variable is unset or empty', () => {
    expect(expand('${PORT:-3000}').value).toBe('3000');
    expect(expand('${PORT:-3000}', { PORT: '' }).value).toBe('3000');
    expect(expand('${PORT:-3000}', { PORT: '8080' }).value).toBe('8080');
    expect(expand('${DIR:-}').value).toBe('');
    expect(expand('${URL:-http://localhost:3000/mcp}').value).toBe('http://localhost:3000/mcp');
  });

  it('reads $${ as a literal ${ and leaves a lone $ alone', () => {
    expect(expand('$${HOME}', { HOME: '/home/x' })).toEqual({ value: '${HOME}', problems: [] });
    expect(expand('cost: $5, $HOME, $$').value).toBe('cost: $5, $HOME, $$');
    expect(expand('$$${A}', { A: 'x' }).value).toBe('$${A}'); // read left to right: "$" then "$${"
  });

  it("leaves the runtime's own placeholders for the server actor to fill in", () => {
    expect(RUNTIME_PLACEHOLDERS).toEqual(['SANDBOX_ROOT', 'TENANT']);
    const env = { SANDBOX_ROOT: '/host/value', TENANT: 'host' };
    expect(expand('${SANDBOX_ROOT}/data/${TENANT}', env)).toEqual({ value: '${SANDBOX_ROOT}/data/${TENANT}', problems: [] });
    expect(expand('${SANDBOX_ROOT:-/tmp}').problems[0]?.hint).toBe('write ${SANDBOX_ROOT} without a default');
  });

  it('reports malformed and unterminated references with what to write', () => {
    expect(expand('${}').problems[0]?.problem).toBe('has a malformed reference "${}"');
    expect(expand('${1ABC}').problems[0]?.hint).toContain('not starting with a digit');
    expect(expand('${PORT-3000}').problems[0]?.hint).toBe('only ${NAME:-default} is supported: write ${PORT:-3000}');
    expect(expand('${env:TOKEN}').problems[0]?.hint).toContain('write ${TOKEN}');
    expect(expand('x ${TOKEN').problems[0]).toEqual({
      problem: 'has an unterminated reference "${TOKEN" (no closing })',
      hint: 'close it with }, or write $${ for a literal ${',
    });
    expect(expand('${A:-${B}}').problems[0]?.hint).toContain('nested references are not supported');
  });
});

describe('resolveEnvReferences', () => {
  it('walks objects and lists, filling in string values and never keys', () => {
    const input = { env: { '${KEY}': '${VALUE}' }, args: ['a', '${VALUE}', 3, true, null] };
    expect(resolveEnvReferences(input, { KEY: 'k', VALUE: 'v' })).toEqual({
      value: { env: { '${KEY}': 'v' }, args: ['a', 'v', 3, true, null] },
      problems: [],
    });
  });

  it('reports each problem at the key path of its string', () => {
    const { problems } = resolveEnvReferences({ servers: { github: { args: ['${A}', '${B}'] } } }, {});
    expect(problems.map((p) => p.path)).toEqual([
      ['servers', 'github', 'args', 0],
      ['servers', 'github', 'args', 1],
    ]);
  });

  it('never changes its input', () => {
    const input = { a: '${A}' };
    resolveEnvReferences(input, { A: 'x' });
    expect(input).toEqual({ a: '${A}' });
  });
});

describe('references in agents.yaml', () => {
  const text = [
    'servers:',
    '  github:',
    '    command: npx',
    '    env:',
    '      GITHUB_TOKEN: "${GITHUB_TOKEN}"',
    '      LOG_LEVEL: "${LOG_LEVEL:-info}"',
    '      LITERAL: "$${NOT_A_REFERENCE}"',
    '    args: ["${SANDBOX_ROOT}", "--tenant=${TENANT}"]',
  ].join('\n');

  it('are filled in from options.env when the file is loaded', () => {
    const config = parseAgentsConfig(text, { env: { GITHUB_TOKEN: 'ghp_x' } });
    expect(config.servers.github?.env).toEqual({ GITHUB_TOKEN: 'ghp_x', LOG_LEVEL: 'info', LITERAL: '${NOT_A_REFERENCE}' });
    expect(config.servers.github?.args).toEqual(['${SANDBOX_ROOT}', '--tenant=${TENANT}']);
  });

  it('are read from process.env when no env is given', () => {
    process.env.MCP_ACTORS_TEST_TOKEN = 'from-process';
    try {
      const config = parseAgentsConfig('servers:\n  a:\n    command: x\n    env: { T: "${MCP_ACTORS_TEST_TOKEN}" }\n');
      expect(config.servers.a?.env.T).toBe('from-process');
    } finally {
      delete process.env.MCP_ACTORS_TEST_TOKEN;
    }
  });

  it('name the missing variable, its key path and its line', () => {
    try {
      parseAgentsConfig(text, { file: 'agents.yaml', env: {} });
      expect.unreachable();
    } catch (error) {
      if (!isConfigError(error)) throw error;
      expect(error.problems).toEqual([
        {
          path: 'servers.github.env.GITHUB_TOKEN',
          problem: 'agents.yaml:5:7: GITHUB_TOKEN is not set in the environment',
          hint: 'server "github" cannot start without it: export it, or remove the reference (${GITHUB_TOKEN:-text} gives a default)',
        },
      ]);
    }
  });
});
