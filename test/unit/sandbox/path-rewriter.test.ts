import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, isMcpActorsError, isSandboxPathError, SandboxPathError, type SandboxPathReason } from '../../../src/errors/index.js';
import { fieldKind, keyTokens } from '../../../src/sandbox/path-fields.js';
import { SandboxPathRewriter, type JsonSchemaObject } from '../../../src/sandbox/path-rewriter.js';
import { thrownBy } from '../../support/rejection.js';

// The input schemas server-filesystem 2026.8.31 lists (`$schema` dropped).
const readFile = {
  type: 'object',
  properties: { path: { type: 'string' }, tail: { type: 'number', description: 'If provided, returns only the last N lines of the file' } },
  required: ['path'],
};
const readMultipleFiles = {
  type: 'object',
  properties: {
    paths: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: 'Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories.',
    },
  },
  required: ['paths'],
};
const writeFile = { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] };
const editFile = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    edits: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          oldText: { type: 'string', description: 'Text to search for - must match exactly' },
          newText: { type: 'string', description: 'Text to replace with' },
        },
        required: ['oldText', 'newText'],
      },
    },
    dryRun: { type: 'boolean', default: false },
  },
  required: ['path', 'edits'],
};
const moveFile = {
  type: 'object',
  properties: { source: { type: 'string' }, destination: { type: 'string' } },
  required: ['source', 'destination'],
};
const searchFiles = {
  type: 'object',
  properties: { path: { type: 'string' }, pattern: { type: 'string' }, excludePatterns: { type: 'array', items: { type: 'string' } } },
};
/** Not a server-filesystem tool: a multi-file edit, to see errors name `edits.0.path`. */
const multiEdit = {
  type: 'object',
  properties: {
    edits: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, oldText: { type: 'string' } } } },
  },
};

let base: string;
let sandbox: string;
let host: string;
let outside: string;
let rewriter: SandboxPathRewriter;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-rewriter-')));
  sandbox = join(base, 'sandbox');
  host = join(base, 'project');
  outside = join(base, 'outside');
  for (const dir of [join(sandbox, 'src'), join(sandbox, 'nested'), host, outside, `${sandbox}_evil`]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(sandbox, 'src', 'main.py'), 'print("hi")\n');
  writeFileSync(join(outside, 'secret.txt'), 'secret\n');
  symlinkSync(join(outside, 'secret.txt'), join(sandbox, 'file-out'));
  symlinkSync(outside, join(sandbox, 'dir-out'));
  symlinkSync('../../../t', join(sandbox, 'nested', 'up'));
  symlinkSync('../outside/missing.txt', join(sandbox, 'dangling-out'));
  symlinkSync('missing.txt', join(sandbox, 'dangling-in'));
  symlinkSync('src', join(sandbox, 'src-link'));
  symlinkSync(`${sandbox}_evil`, join(sandbox, 'evil-link'));
  symlinkSync('loop-b', join(sandbox, 'loop-a'));
  symlinkSync('loop-a', join(sandbox, 'loop-b'));
  rewriter = new SandboxPathRewriter({ sandboxRoot: sandbox, hostRoot: host });
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const refusal = (run: () => unknown): SandboxPathError =>
  thrownBy(run, isSandboxPathError, 'expected a SandboxPathError, nothing was thrown');

describe('SandboxPathRewriter.toSandbox', () => {
  it('maps logical paths, ".", "" and absolute host paths into the sandbox', () => {
    expect(rewriter.toSandbox('src/main.py')).toBe(`${sandbox}/src/main.py`);
    expect(rewriter.toSandbox('./src/')).toBe(`${sandbox}/src`);
    expect(rewriter.toSandbox('.')).toBe(sandbox);
    expect(rewriter.toSandbox('')).toBe(sandbox);
    expect(rewriter.toSandbox(`${host}/src/main.py`)).toBe(`${sandbox}/src/main.py`);
    expect(rewriter.toSandbox(host)).toBe(sandbox);
    expect(rewriter.toSandbox(`${sandbox}//src/./main.py`)).toBe(`${sandbox}/src/main.py`);
  });

  it('normalises a ".." that stays inside the root', () => {
    expect(rewriter.toSandbox('src/../lib/x.py')).toBe(`${sandbox}/lib/x.py`);
    expect(rewriter.toSandbox(`${host}/src/../lib`)).toBe(`${sandbox}/lib`);
  });

  it('follows symbolic links that stay inside, and dangling ones whose target is inside', () => {
    expect(rewriter.toSandbox('src-link/main.py')).toBe(`${sandbox}/src-link/main.py`);
    expect(rewriter.toSandbox('dangling-in')).toBe(`${sandbox}/dangling-in`);
  });

  it('turns a local file: URI into a plain sandbox path', () => {
    expect(rewriter.toSandbox(`file://${host}/src/main.py`)).toBe(`${sandbox}/src/main.py`);
    expect(rewriter.toSandbox(`file://localhost${host}/a%20b.txt`)).toBe(`${sandbox}/a b.txt`);
  });

  it('goes back with toLogical', () => {
    expect(rewriter.toLogical(`${sandbox}/src/main.py`)).toBe('src/main.py');
    expect(rewriter.toLogical(sandbox)).toBe('.');
    expect(rewriter.toLogical(`${sandbox}/`)).toBe('.');
    expect(() => rewriter.toLogical(`${sandbox}_evil/x`)).toThrow(SandboxPathError);
    expect(() => rewriter.toLogical('src/main.py')).toThrow(SandboxPathError);
  });
});

describe('SandboxPathRewriter refuses paths that would leave the sandbox', () => {
  const battery: [label: string, value: () => string, reason: SandboxPathReason][] = [
    ['..', () => '..', 'parent-traversal'],
    ['../../etc/passwd', () => '../../etc/passwd', 'parent-traversal'],
    ['src/../../x', () => 'src/../../x', 'parent-traversal'],
    ['a sandbox path climbing out', () => `${sandbox}/../outside/secret.txt`, 'parent-traversal'],
    ['/etc/passwd', () => '/etc/passwd', 'outside-roots'],
    ['a sibling of the sandbox root with its name as prefix', () => `${sandbox}_evil/x`, 'outside-roots'],
    ['a sibling of the host root with its name as prefix', () => `${host}_evil/x`, 'outside-roots'],
    ['a symlink to a file outside', () => 'file-out', 'symlink-escape'],
    ['a symlink to a directory outside', () => 'dir-out', 'symlink-escape'],
    ['a path through a directory symlink outside', () => 'dir-out/secret.txt', 'symlink-escape'],
    ['a path through a parent symlink (../..)', () => 'nested/up/outside/secret.txt', 'symlink-escape'],
    ['a dangling symlink pointing outside', () => 'dangling-out', 'symlink-escape'],
    ['a file beneath a dangling symlink pointing outside', () => 'dangling-out/x', 'symlink-escape'],
    ['a symlink to a sibling of the sandbox with its name as prefix', () => 'evil-link/x', 'symlink-escape'],
    ['a symlink loop', () => 'loop-a', 'unverifiable'],
    ['%2e%2e/secret', () => '%2e%2e/secret', 'encoded-separator'],
    ['%2E%2E%2Fx', () => '%2E%2E%2Fx', 'encoded-separator'],
    ['an encoded slash', () => 'src%2fmain.py', 'encoded-separator'],
    ['a NUL byte', () => 'a\0b', 'nul-byte'],
    ['an encoded NUL', () => 'a%00b', 'nul-byte'],
    ['..\\ (backslash traversal)', () => '..\\..\\etc\\passwd', 'backslash-traversal'],
    ['file://evil-host/etc/passwd', () => 'file://evil-host/etc/passwd', 'remote-file-uri'],
    ['file:///etc/passwd', () => 'file:///etc/passwd', 'outside-roots'],
    ['a file: URI climbing out', () => `file://${host}/../outside/secret.txt`, 'parent-traversal'],
    ['a file: URI with encoded dots', () => `file://${host}/%2e%2e/outside`, 'encoded-separator'],
    ['a file: URI with double-encoded dots', () => `file://${host}/%252e%252e/outside`, 'encoded-separator'],
    ['a relative file: URI', () => 'file:etc/passwd', 'invalid-uri'],
    ['a file: URI with a query', () => `file://${host}/x?y`, 'invalid-uri'],
    ['~/x', () => '~/x', 'home-relative'],
    ['~root/x', () => '~root/x', 'home-relative'],
  ];

  it.each(battery)('refuses %s, naming the argument and the value', (_label, value, reason) => {
    const bad = value();
    const error = refusal(() => rewriter.rewriteArgs({ paths: ['src/main.py', bad] }, readMultipleFiles));
    expect(error.code).toBe(ErrorCode.SANDBOX_PATH);
    expect(error.argument).toBe('paths.1');
    expect(error.path).toBe(bad);
    expect(error.reason).toBe(reason);
    expect(error.message).toContain('"paths.1"');
    expect(error.message).toContain(JSON.stringify(bad));
    expect(error.details).toMatchObject({ argument: 'paths.1', path: bad, reason });
    expect(isMcpActorsError(error)).toBe(true);
  });

  it('names a nested argument path such as edits.0.path', () => {
    const error = refusal(() => rewriter.rewriteArgs({ edits: [{ path: '../../etc/passwd', oldText: 'a' }] }, multiEdit));
    expect(error.argument).toBe('edits.0.path');
    expect(error.path).toBe('../../etc/passwd');
  });

  it('names the argument given to toSandbox, and "path" by default', () => {
    expect(refusal(() => rewriter.toSandbox('/etc/passwd')).argument).toBe('path');
    expect(refusal(() => rewriter.toSandbox('/etc/passwd', 'source')).argument).toBe('source');
  });

  it('refuses a URL in a path field that contains ".."', () => {
    expect(refusal(() => rewriter.rewriteArgs({ source: 'https://example.com/../../etc/passwd' }, moveFile)).argument).toBe('source');
  });

  it('is recognised by brand, so two copies of the package agree', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('mcp-actors.sandbox-path-error')]: true });
    expect(isSandboxPathError(foreign)).toBe(true);
    expect(isSandboxPathError(new Error('x'))).toBe(false);
  });
});

describe('SandboxPathRewriter.rewriteArgs with server-filesystem schemas', () => {
  it('rewrites read_file {path}', () => {
    expect(rewriter.rewriteArgs({ path: 'src/main.py', tail: 3 }, readFile)).toEqual({ path: `${sandbox}/src/main.py`, tail: 3 });
  });

  it('rewrites every element of read_multiple_files {paths}', () => {
    expect(rewriter.rewriteArgs({ paths: ['src/main.py', `${host}/README.md`] }, readMultipleFiles)).toEqual({
      paths: [`${sandbox}/src/main.py`, `${sandbox}/README.md`],
    });
  });

  it('rewrites move_file {source, destination}', () => {
    expect(rewriter.rewriteArgs({ source: 'a.txt', destination: 'b/a.txt' }, moveFile)).toEqual({
      source: `${sandbox}/a.txt`,
      destination: `${sandbox}/b/a.txt`,
    });
  });

  it('leaves edit_file oldText and newText alone when they are text, even text mentioning paths', () => {
    const args = {
      path: 'src/main.py',
      edits: [{ oldText: 'open("../../etc/passwd")', newText: `see ${host}/x\nand /etc/passwd` }],
      dryRun: true,
    };
    expect(rewriter.rewriteArgs(args, editFile)).toEqual({ ...args, path: `${sandbox}/src/main.py` });
  });

  it('checks edit_file oldText and newText whose whole value is a path, like any other string', () => {
    const args = { path: 'src/main.py', edits: [{ oldText: 'x', newText: `${host}/x` }] };
    expect(rewriter.rewriteArgs(args, editFile)).toEqual({
      path: `${sandbox}/src/main.py`,
      edits: [{ oldText: 'x', newText: `${sandbox}/x` }],
    });
    const refused = refusal(() =>
      rewriter.rewriteArgs({ path: 'src/main.py', edits: [{ oldText: '../../etc/passwd', newText: 'y' }] }, editFile),
    );
    expect(refused.details).toMatchObject({ argument: 'edits.0.oldText', path: '../../etc/passwd', reason: 'parent-traversal' });
  });

  it('leaves write_file content alone', () => {
    const args = { path: 'notes/todo.md', content: '/etc/passwd and ../secret' };
    expect(rewriter.rewriteArgs(args, writeFile)).toEqual({ path: `${sandbox}/notes/todo.md`, content: args.content });
  });

  it('leaves search patterns alone, unless one climbs out of the project', () => {
    const args = { path: '.', pattern: '**/*.py', excludePatterns: ['node_modules', '**/*.log', 'a/../b'] };
    expect(rewriter.rewriteArgs(args, searchFiles)).toEqual({ ...args, path: sandbox });
    const refused = refusal(() => rewriter.rewriteArgs({ ...args, excludePatterns: ['../node_modules'] }, searchFiles));
    expect(refused.details).toMatchObject({ argument: 'excludePatterns.0', reason: 'parent-traversal' });
  });

  it('rewrites absolute host paths and already-sandboxed paths the same way', () => {
    expect(rewriter.rewriteArgs({ path: `${host}/src/main.py` }, readFile)).toEqual({ path: `${sandbox}/src/main.py` });
    expect(rewriter.rewriteArgs({ path: `${sandbox}/src/main.py` }, readFile)).toEqual({ path: `${sandbox}/src/main.py` });
  });

  it('keeps the file:// form of a URI in a path field', () => {
    expect(rewriter.rewriteArgs({ path: `file://${host}/src/a b.py` }, readFile)).toEqual({ path: `file://${sandbox}/src/a%20b.py` });
  });

  it('rewrites file: URIs in uri fields and leaves other URLs alone', () => {
    const schema = { type: 'object', properties: { uri: { type: 'string', format: 'uri' }, url: { type: 'string' } } };
    expect(rewriter.rewriteArgs({ uri: `file://${host}/x`, url: 'https://example.com/x' }, schema)).toEqual({
      uri: `file://${sandbox}/x`,
      url: 'https://example.com/x',
    });
  });

  it('judges fields by key alone when there is no schema', () => {
    const args = { file_path: 'a', sourcePath: 'b', 'output-dir': 'c', target: 'main', content: 'd', nested: { dirs: ['e'] } };
    expect(rewriter.rewriteArgs(args)).toEqual({
      file_path: `${sandbox}/a`,
      sourcePath: `${sandbox}/b`,
      'output-dir': `${sandbox}/c`,
      target: 'main',
      content: 'd',
      nested: { dirs: [`${sandbox}/e`] },
    });
  });

  it('takes `target` as a path only when its schema says so', () => {
    const schema = { type: 'object', properties: { target: { type: 'string', description: 'Path of the link to create' } } };
    expect(rewriter.rewriteArgs({ target: 'a' }, schema)).toEqual({ target: `${sandbox}/a` });
  });

  it('follows $ref, anyOf and additionalProperties in the schema', () => {
    const schema: JsonSchemaObject = {
      type: 'object',
      $defs: { spot: { type: 'object', properties: { where: { type: 'string', description: 'Directory to use' } } } },
      properties: {
        a: { $ref: '#/$defs/spot' },
        b: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/spot' }] },
        map: { type: 'object', additionalProperties: { type: 'string', format: 'file-path' } },
      },
    };
    expect(rewriter.rewriteArgs({ a: { where: 'x' }, b: { where: 'y' }, map: { one: 'z' } }, schema)).toEqual({
      a: { where: `${sandbox}/x` },
      b: { where: `${sandbox}/y` },
      map: { one: `${sandbox}/z` },
    });
  });

  it('never mutates its input', () => {
    const args = { paths: ['src/main.py'], edits: [{ oldText: 'a', newText: 'b' }] };
    const before = structuredClone(args);
    const out = rewriter.rewriteArgs(args, readMultipleFiles);
    expect(args).toEqual(before);
    expect(out.edits).not.toBe(args.edits);
  });

  it('copies __proto__ keys from JSON.parse as data without polluting Object.prototype', () => {
    const args = JSON.parse('{"path":"a","__proto__":{"polluted":"yes","path":"b"}}') as Record<string, unknown>;
    const out = rewriter.rewriteArgs(args, readFile);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['path', '__proto__']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: 'yes', path: `${sandbox}/b` });
  });
});

describe('SandboxPathRewriter.rewriteResult', () => {
  it('turns sandbox paths in text back into logical paths, at path boundaries only', () => {
    const text = `wrote ${sandbox}/src/main.py and ${sandbox}/b.txt; root is ${sandbox}; see "${sandbox}/" but not ${sandbox}_other/x or ${sandbox}x`;
    const result = rewriter.rewriteResult({ content: [{ type: 'text', text }] });
    // Where the root is glued to other text it is no path of the project, but it still names the sandbox: masked.
    expect(result.content[0]?.text).toBe('wrote src/main.py and b.txt; root is .; see "./" but not <sandbox>_other/x or <sandbox>x');
  });

  it('rewrites structuredContent values and keys', () => {
    const result = rewriter.rewriteResult({
      content: [],
      structuredContent: { files: [`${sandbox}/a`, `${sandbox}/b/c`], [`${sandbox}/key`]: 1, count: 2 },
    });
    expect(result.structuredContent).toEqual({ files: ['a', 'b/c'], key: 1, count: 2 });
  });

  it('never touches image or audio data and resource blobs', () => {
    const blob = `${sandbox}/looks/like/a/path`;
    const result = rewriter.rewriteResult({
      content: [
        { type: 'image', data: blob, mimeType: 'image/png' },
        { type: 'audio', data: blob, mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: `file://${sandbox}/bin`, blob, mimeType: 'application/octet-stream' } },
      ],
    });
    expect(result.content[0]?.data).toBe(blob);
    expect(result.content[1]?.data).toBe(blob);
    expect(result.content[2]?.resource).toEqual({ uri: `file://${host}/bin`, blob, mimeType: 'application/octet-stream' });
  });

  it('gives file:// URIs the host form, in resources, resource links and text', () => {
    const result = rewriter.rewriteResult({
      content: [
        { type: 'resource', resource: { uri: `file://${sandbox}/a.md`, text: `see ${sandbox}/a.md`, mimeType: 'text/markdown' } },
        { type: 'resource_link', uri: `file://${sandbox}/b.md`, name: 'b.md' },
        { type: 'text', text: `open file://${sandbox}/c.md` },
      ],
    });
    expect(result.content).toEqual([
      { type: 'resource', resource: { uri: `file://${host}/a.md`, text: 'see a.md', mimeType: 'text/markdown' } },
      { type: 'resource_link', uri: `file://${host}/b.md`, name: 'b.md' },
      { type: 'text', text: `open file://${host}/c.md` },
    ]);
  });

  it('changes nothing the second time', () => {
    const result = { content: [{ type: 'text', text: `${sandbox}/a ${sandbox}//b file://${sandbox}/c ${sandbox}. ${sandbox}` }] };
    const once = rewriter.rewriteResult(result);
    expect(rewriter.rewriteResult(once)).toEqual(once);
    expect(result.content[0]?.text).toContain(sandbox);
  });
});

describe('SandboxPathRewriter construction', () => {
  it('refuses relative roots and roots that contain each other', () => {
    expect(() => new SandboxPathRewriter({ sandboxRoot: 'sandbox', hostRoot: host })).toThrow(/absolute/);
    expect(() => new SandboxPathRewriter({ sandboxRoot: join(host, '.sandbox'), hostRoot: host })).toThrow(/must not contain each other/);
    expect(() => new SandboxPathRewriter({ sandboxRoot: sandbox, hostRoot: join(sandbox, 'project') })).toThrow(
      /must not contain each other/,
    );
    expect(() => new SandboxPathRewriter({ sandboxRoot: sandbox, hostRoot: sandbox })).toThrow(/must not contain each other/);
  });

  it('resolves a root given through a symlink, and accepts both spellings', () => {
    const alias = join(base, 'sandbox-alias');
    symlinkSync(sandbox, alias);
    const aliased = new SandboxPathRewriter({ sandboxRoot: alias, hostRoot: host });
    expect(aliased.sandboxRoot).toBe(sandbox);
    expect(aliased.toSandbox(`${alias}/src/main.py`)).toBe(`${sandbox}/src/main.py`);
    expect(aliased.rewriteText(`${alias}/x and ${sandbox}/y`)).toBe('x and y');
  });
});

describe('which fields hold paths', () => {
  it('splits keys into words', () => {
    expect(keyTokens('sourcePath')).toEqual(['source', 'path']);
    expect(keyTokens('output_dir')).toEqual(['output', 'dir']);
    expect(keyTokens('HTTPRoot')).toEqual(['http', 'root']);
    expect(keyTokens('file-name')).toEqual(['file', 'name']);
  });

  it.each([
    ['path', 'path'],
    ['file_path', 'path'],
    ['fileName', 'path'],
    ['srcDir', 'path'],
    ['roots', 'path'],
    ['oldText', 'none'],
    ['content', 'none'],
    ['source_code', 'none'],
    ['jsonPath', 'none'],
    ['target', 'none'],
    ['dir_name', 'none'],
    ['uri', 'uri'],
    ['excludePatterns', 'none'],
  ] as const)('reads %s as %s without a schema', (key, kind) => {
    expect(fieldKind(key, [])).toBe(kind);
  });

  it('lets the schema rule a path out', () => {
    expect(fieldKind('path', [{ type: 'number' }])).toBe('none');
    expect(fieldKind('source', [{ type: 'string', enum: ['web', 'cache'] }])).toBe('none');
    expect(fieldKind('jsonPath', [{ type: 'string', description: 'Path to the JSON file' }])).toBe('path');
    expect(fieldKind('branch', [{ type: 'string', description: 'Branch to create/update the file in' }])).toBe('none');
  });
});
