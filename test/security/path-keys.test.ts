/**
 * The attack: a path to a file outside the project, put under a key the rewriter did not take for
 * a path (`location`, `target`, `input`, a plain path under `uri`), reached an unconfined server,
 * which read the file. And its results named the sandbox's real root in upper case and with
 * backslashes, and its checkpoints folder. Here a real hostile stdio server (it reads every path
 * it is given, under any key) runs unconfined in a real sandbox: each such call must be refused
 * before it is sent, and nothing it answers may name where the sandbox really is.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolAdapter } from '../../src/adapter/mcp-tool-adapter.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { SandboxWorkspace } from '../../src/sandbox/sandbox-workspace.js';
import { runToolCall } from '../../src/tool-call/run-tool-call.js';
import { createGitProject } from '../support/git-project.js';

const SERVER = fileURLToPath(new URL('../support/path-keys-server.mjs', import.meta.url));
const SECRET = 'the-outside-secret';

let project: string;
let outside: string;
let secretFile: string;
let sandbox: Sandbox;
let workspace: SandboxWorkspace;
let adapter: McpToolAdapter;
const registry = new ToolRegistry();
/** What beforeAll opened, for afterAll to dispose in reverse: a beforeAll that failed part way opened less. */
const opened: { dispose(): Promise<void> }[] = [];

beforeAll(async () => {
  project = createGitProject({ 'src/main.py': 'print(1)\n' });
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-outside-')));
  secretFile = join(outside, 'secret.txt');
  writeFileSync(secretFile, `${SECRET}\n`);
  sandbox = await Sandbox.create({ projectDir: project });
  opened.push(sandbox);
  workspace = await SandboxWorkspace.open(sandbox);
  opened.push(workspace);
  adapter = new McpToolAdapter({ name: 'hostile', transport: 'stdio', command: process.execPath, args: [SERVER], cwd: sandbox.root });
  opened.push(adapter);
  await adapter.connect();
  await adapter.registerTools(registry, { namespace: 'hostile' });
});

afterAll(async () => {
  for (const resource of opened.reverse()) await resource.dispose();
  rmSync(project, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const call = (tool: string, args: Record<string, unknown>) => runToolCall({ registry, workspace }, { tool: `hostile/${tool}`, args });
const text = (outcome: { result?: { content: readonly Record<string, unknown>[] } | undefined }): string =>
  String(outcome.result?.content[0]?.text);

describe('a path outside the project under a key that does not say "path", to an unconfined server', () => {
  const attacks: [string, () => Record<string, unknown>, string][] = [
    ['location', () => ({ location: secretFile }), 'location'],
    ['target', () => ({ target: secretFile }), 'target'],
    ['input, nested in arrays', () => ({ input: [{ spec: ['ok', [secretFile]] }] }), 'input.0.spec.1.0'],
    ['a plain path under uri', () => ({ uri: secretFile }), 'uri'],
    ['a file:// URI under uri', () => ({ uri: pathToFileURL(secretFile).href }), 'uri'],
    [
      'a percent-encoded file:// URI under an unknown key',
      () => ({ anything: `file://${secretFile.replace('secret', '%73ecret')}` }),
      'anything',
    ],
    ['a relative path climbing out under an unknown key', () => ({ where: `../../../../../../../..${secretFile}` }), 'where'],
  ];
  for (const [name, args, argument] of attacks) {
    it(`is refused before it is sent: ${name}`, async () => {
      const outcome = await call('read_any', args());
      expect(outcome.status).toBe('rejected');
      expect(outcome.error?.code).toBe('SANDBOX_PATH');
      expect(outcome.error?.details).toMatchObject({ argument });
      expect(JSON.stringify(outcome)).not.toContain(SECRET);
    });
  }

  it('a path inside the project under such a key is rewritten into the sandbox, and read there', async () => {
    const outcome = await call('read_any', {
      location: join(project, 'src/main.py'),
      input: [{ spec: [pathToFileURL(join(project, 'src/main.py')).href] }],
    });
    expect(outcome.status).toBe('committed');
    // The server read the sandbox's copy; the result names the project's paths, never the sandbox's.
    expect(text(outcome)).toBe(`src/main.py: print(1)\n\nfile://${project}/src/main.py: print(1)\n`);
  });
});

describe('what an unconfined server says about where it runs', () => {
  it('never names the sandbox root, its temp dir or its checkpoints, in any spelling', async () => {
    const outcome = await call('where', {});
    expect(outcome.status).toBe('committed');
    const said = JSON.stringify(outcome.result);
    const temp = dirname(sandbox.root);
    for (const secret of [sandbox.root, temp, sandbox.checkpointsDir]) {
      for (const spelling of [
        secret,
        secret.toUpperCase(),
        secret.replaceAll('/', '\\'),
        encodeURIComponent(secret),
        secret.replaceAll('/', '\\/'),
      ]) {
        expect(said.toLowerCase()).not.toContain(spelling.toLowerCase());
      }
    }
    expect(said.toLowerCase()).not.toContain(temp.split('/').at(-1)!.toLowerCase());
    expect(text(outcome).split('\n')).toEqual([
      'upper <sandbox>/src/main.py',
      'backslash <sandbox>\\src\\main.py',
      'percent <sandbox>%2Fsrc%2Fmain.py',
      'json {"file":"<sandbox>\\/src\\/main.py"}',
      'json-backslash {"file":"<sandbox>\\\\src"}',
      'checkpoints <sandbox-private>/objects',
      'temp <sandbox-private>',
      'glued <sandbox>_old',
    ]);
  });
});
