import { describe, expect, it } from 'vitest';
import { ConfigError, ErrorCode, McpActorsError, isConfigError, isMcpActorsError } from '../../src/errors/index.js';

describe('the error family', () => {
  it('carries a code, a message and the cause', () => {
    const cause = new Error('spawn ENOENT');
    const error = new McpActorsError(ErrorCode.SPAWN_FAILED, 'could not spawn "nope"', { cause });
    expect(error.code).toBe('SPAWN_FAILED');
    expect(error.cause).toBe(cause);
    expect(isMcpActorsError(error)).toBe(true);
    expect(isMcpActorsError(new Error('x'))).toBe(false);
  });

  it('is recognised by brand, not by class identity, so two copies of the package agree', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('mcp-actors.error')]: true });
    expect(isMcpActorsError(foreign)).toBe(true);
  });

  it('lists every config problem with its key path and hint', () => {
    const error = new ConfigError([
      { path: 'command', problem: 'is required for transport "stdio"', hint: 'write command: "node"' },
      { path: 'backoff.factor', problem: 'must be a number' },
    ]);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(isConfigError(error)).toBe(true);
    expect(isMcpActorsError(error)).toBe(true);
    expect(error.message).toContain('command: is required for transport "stdio" — write command: "node"');
    expect(error.message).toContain('backoff.factor: must be a number');
    expect(error.problems).toHaveLength(2);
  });
});
