/**
 * `inspect: { open: true }` opens a browser only where a person is there to see it: a TTY and not
 * under CI. Nothing opens one by itself otherwise (the spawn of the opener is watched).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const spawned: string[][] = [];
vi.mock('node:child_process', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:child_process')>();
  return {
    ...original,
    spawn: (command: string, args: readonly string[]) => {
      spawned.push([command, ...args]);
      return { on: () => undefined, unref: () => undefined };
    },
  };
});

const { openInspector } = await import('../../../src/inspector/open-inspector.js');
const { Redactor } = await import('../../../src/redaction/redactor.js');

const tty = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
const ci = process.env.CI;
afterEach(() => {
  spawned.length = 0;
  if (tty) Object.defineProperty(process.stdout, 'isTTY', tty);
  else delete (process.stdout as { isTTY?: boolean }).isTTY;
  if (ci === undefined) delete process.env.CI;
  else process.env.CI = ci;
});

async function openWith(options: { isTTY: boolean; ci: string | undefined; open?: boolean }): Promise<string[][]> {
  Object.defineProperty(process.stdout, 'isTTY', { value: options.isTTY, configurable: true });
  if (options.ci === undefined) delete process.env.CI;
  else process.env.CI = options.ci;
  const server = await openInspector(
    { port: 0, print: false, ...(options.open !== undefined ? { open: options.open } : {}) },
    new Redactor(),
  );
  try {
    return spawned.filter((command) => command.includes(server.url));
  } finally {
    await server.close();
  }
}

describe('opening a browser for the inspector', () => {
  it('never without a TTY', async () => {
    expect(await openWith({ isTTY: false, ci: undefined, open: true })).toEqual([]);
  });

  it('never under CI', async () => {
    expect(await openWith({ isTTY: true, ci: 'true', open: true })).toEqual([]);
  });

  it('never unless asked', async () => {
    expect(await openWith({ isTTY: true, ci: undefined })).toEqual([]);
  });

  it('opens the printed URL when asked, on a TTY, outside CI', async () => {
    expect(await openWith({ isTTY: true, ci: undefined, open: true })).toHaveLength(1);
  });
});
