import { describe, expect, it } from 'vitest';
import { errorJson, formatError } from '../../../src/cli/format-error.js';
import { UsageError } from '../../../src/cli/usage-error.js';
import { McpActorsError } from '../../../src/errors/mcp-actors-error.js';

describe('formatError', () => {
  it("prints error [CODE]: message for the runtime's errors, without a stack", () => {
    expect(formatError(new McpActorsError('SPAWN_FAILED', 'cannot spawn "nope"'), { debug: false })).toBe(
      'error [SPAWN_FAILED]: cannot spawn "nope"\n',
    );
  });

  it('names the flag when the runtime asks for a sandbox', () => {
    const cause = new McpActorsError('ACTIVATION_FAILED', 'server "files" uses ${SANDBOX_ROOT} in args.1, but ...', {
      details: { placeholder: 'SANDBOX_ROOT' },
    });
    expect(formatError(cause, { debug: false })).toContain(
      '\nhint: a server of this actor works in a sandbox: add --sandbox <projectDir>\n',
    );
  });

  it("says a server in ERROR in config terms, from the error's structure, without API method names", () => {
    const exit = new McpActorsError('SERVER_EXITED', 'server "files" exited with code 3 before the handshake');
    const inError = new McpActorsError(
      'SERVER_IN_ERROR',
      'server "files" is in ERROR (after 5 automatic restarts). x cannot run until start() or reconnect() is called',
      {
        cause: exit,
        details: { server: 'files', restarts: 5 },
      },
    );
    const text = formatError(new McpActorsError('ACTIVATION_FAILED', 'actor did not start', { cause: inError }), { debug: false });
    expect(text).toBe(
      'error [ACTIVATION_FAILED]: server "files" could not start and gave up after 5 automatic restarts: server "files" exited with code 3 before the handshake\n' +
        'hint: fix command, args, env or cwd under servers.files in agents.yaml, then run the command again\n',
    );
  });

  it('prints a usage error as one line, even under --debug', () => {
    expect(formatError(new UsageError('unknown flag --x'), { debug: true })).toBe('error: unknown flag --x\n');
  });

  it('says how to see the stack of an unexpected error, and shows it with every cause under --debug', () => {
    expect(formatError(new TypeError('x is undefined'), { debug: false })).toBe(
      'error: x is undefined\n(this is unexpected: run again with --debug for the stack trace)\n',
    );
    const error = new McpActorsError('CONNECTION_LOST', 'lost', { cause: new Error('EPIPE') });
    const text = formatError(error, { debug: true });
    expect(text).toContain('McpActorsError: lost\n    at ');
    expect(text).toContain('caused by: Error: EPIPE');
  });

  it('gives code, message and details for --json', () => {
    expect(errorJson(new McpActorsError('NOT_FOUND', 'no', { details: { tool: 'x' } }))).toEqual({
      code: 'NOT_FOUND',
      message: 'no',
      details: { tool: 'x' },
    });
    expect(errorJson(new UsageError('bad'))).toEqual({ code: 'USAGE', message: 'bad' });
  });
});
