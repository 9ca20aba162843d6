/**
 * Which strings the path rewriter takes for paths when no key or schema says so (whole-value paths
 * are; prose, commands, regular expressions and ordinary values are not), and how results mask the
 * sandbox's private folders.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSandboxPathError } from '../../../src/errors/index.js';
import { pathLike } from '../../../src/sandbox/path-shape.js';
import { SandboxPathRewriter } from '../../../src/sandbox/path-rewriter.js';

let base: string;
let temp: string;
let sandbox: string;
let host: string;
let rewriter: SandboxPathRewriter;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-rewriter-text-')));
  temp = join(base, 'sandbox-tmp');
  sandbox = join(temp, 'worktree');
  host = join(base, 'project');
  mkdirSync(join(sandbox, 'My Documents'), { recursive: true });
  mkdirSync(join(host, 'My Documents'), { recursive: true });
  writeFileSync(join(host, 'My Documents', 'notes final'), 'x');
  rewriter = new SandboxPathRewriter({ sandboxRoot: sandbox, hostRoot: host, privateDirs: [temp, join(temp, 'checkpoints')] });
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const refused = (args: Record<string, unknown>): boolean => {
  try {
    rewriter.rewriteArgs(args);
    return false;
  } catch (error) {
    if (isSandboxPathError(error)) return true;
    throw error;
  }
};

describe('strings that are not paths pass unchanged, whatever their key', () => {
  const text = [
    '/etc/passwd is where users live',
    'see /etc/passwd',
    "/bin/sh -c 'cat /etc/passwd'",
    '/usr/bin/python3 script.py --out ../x',
    'line one\n/etc/passwd',
    '/etc/passwd and ../secret',
    '\\d+\\.\\w+',
    '\\bword\\b',
    '~5 minutes',
    '~5',
    'a/../b',
    'src/main.py',
    'https://example.com/../x',
    'main',
    '1/2',
    '// TODO',
  ];
  for (const value of text) {
    it(JSON.stringify(value), () => {
      expect(rewriter.rewriteArgs({ location: value, nested: [{ message: value }] })).toEqual({
        location: value,
        nested: [{ message: value }],
      });
    });
  }
});

describe('strings whose whole value is one path are checked, whatever their key', () => {
  const outside = [
    '/',
    '/etc/passwd',
    '/etc/passwd.',
    '/home/me/My Documents/a.txt',
    'file:///etc/passwd',
    '~',
    '~/x',
    '~root/.ssh',
    'C:\\Windows',
    'c:/x',
    '\\\\host\\share',
    '\\Windows\\System32',
    '..',
    '../x',
    'a/../../x',
    '..\\x',
  ];
  for (const value of outside) {
    it(`refuses ${JSON.stringify(value)}`, () => {
      expect(refused({ location: value })).toBe(true);
      expect(refused({ a: [[{ b: value }]] })).toBe(true);
      expect(refused({ [value]: 'as a key' })).toBe(true);
    });
  }

  it('rewrites a path inside the project, spaces in its folders or not, and a key that is one', () => {
    expect(rewriter.rewriteArgs({ location: `${host}/My Documents/a.txt`, [`${host}/x`]: 1 })).toEqual({
      location: `${sandbox}/My Documents/a.txt`,
      [`${sandbox}/x`]: 1,
    });
  });

  it('takes a space in the last segment for a path only when something is there', () => {
    expect(rewriter.rewriteArgs({ location: `${host}/My Documents/notes final` })).toEqual({
      location: `${sandbox}/My Documents/notes final`,
    });
    expect(rewriter.rewriteArgs({ location: `${host}/is the project` })).toEqual({ location: `${host}/is the project` });
    expect(pathLike('/etc/passwd is here')).toEqual({ shape: 'absolute', certain: false });
    expect(pathLike('/etc/report final.txt')).toEqual({ shape: 'absolute', certain: true });
  });
});

describe('results mask the private folders of the sandbox', () => {
  it('in any case, with backslashes, percent-encoded or JSON-escaped', () => {
    const checkpoints = join(temp, 'checkpoints');
    const said = [
      `${checkpoints}/objects/ab`,
      checkpoints.toUpperCase(),
      `${temp.replaceAll('/', '\\')}\\manifest.json`,
      encodeURIComponent(`${temp}/store.git`),
      JSON.stringify({ at: temp }).replaceAll('/', '\\/'),
      `${sandbox}/src`,
    ].join(' ');
    expect(rewriter.rewriteText(said)).toBe(
      '<sandbox-private>/objects/ab <sandbox-private> <sandbox-private>\\manifest.json <sandbox-private>%2Fstore.git {"at":"<sandbox-private>"} src',
    );
  });

  it('never masks the project itself, even if told to', () => {
    const odd = new SandboxPathRewriter({ sandboxRoot: sandbox, hostRoot: host, privateDirs: [base] });
    expect(odd.rewriteText(`${sandbox}/a and ${host}/b`)).toBe(`a and ${host}/b`);
  });
});
