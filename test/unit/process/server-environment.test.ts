import { afterEach, describe, expect, it } from 'vitest';
import { serverEnvironment } from '../../../src/process/server-environment.js';

describe('serverEnvironment', () => {
  const saved = process.env.MCP_ACTORS_TEST_SECRET;
  afterEach(() => {
    if (saved === undefined) delete process.env.MCP_ACTORS_TEST_SECRET;
    else process.env.MCP_ACTORS_TEST_SECRET = saved;
  });

  it('does not pass on a host secret that is not configured', () => {
    process.env.MCP_ACTORS_TEST_SECRET = 'hunter2';
    const env = serverEnvironment({});
    expect(env).not.toHaveProperty('MCP_ACTORS_TEST_SECRET');
    expect(Object.values(env)).not.toContain('hunter2');
  });

  it('inherits only the allowlist (HOME, LOGNAME, PATH, SHELL, TERM, USER)', () => {
    const allowed = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
    expect(Object.keys(serverEnvironment({})).every((key) => allowed.includes(key))).toBe(true);
    expect(serverEnvironment({}).PATH).toBe(process.env.PATH);
  });

  it('adds configured variables, which win over inherited ones', () => {
    process.env.MCP_ACTORS_TEST_SECRET = 'hunter2';
    const env = serverEnvironment({ MCP_ACTORS_TEST_SECRET: 'configured', PATH: '/opt/bin' });
    expect(env.MCP_ACTORS_TEST_SECRET).toBe('configured');
    expect(env.PATH).toBe('/opt/bin');
  });
});
