/**
 * The editing commands as an operator drives them: `node bin/agents.mjs tool|skill|actor
 * add|remove|list` and `init` on real files in a temp folder. The file keeps every byte the edit
 * does not touch; a mistake leaves it unchanged; a kill -9 at any moment leaves it whole.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadAgentsFile } from '../../src/config/agents-file.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { agentsBin, repoRoot, runAgents, type AgentsRun } from '../support/agents-cli.js';

let base: string;
let dir: string;
let seq = 0;

const agents = (args: readonly string[], env: Record<string, string> = {}): Promise<AgentsRun> =>
  runAgents(args, { cwd: dir, timeoutMs: 20_000, env });

const file = (): string => join(dir, 'agents.yaml');
const read = (): string => readFileSync(file(), 'utf8');

/** A file as a person writes it: comments everywhere, aligned comments, flow and block styles, 4-space indent in places. */
const HAND_WRITTEN = `# my agents — keep this comment
servers:            # the servers
  fixture:
    command: node   # aligned comment
    args: [ "./srv.mjs" ]
  remote: { url: "http://127.0.0.1:9/mcp" }

# overrides, by hand
tools:
  fixture/echo:
    overrides: { read_only: true }
skills:
  ops:
    mcp_servers:
      - fixture     # every tool
  web:
    mcp_servers: [fixture, remote]
actors:
  helper:
      skills: [ops]
      permissions: { execute: allow }
# trailing comment
`;

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'dist/cli/main.js')))
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  base = mkdtempSync(join(tmpdir(), 'mcp-actors-edit-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));
beforeEach(() => {
  seq += 1;
  dir = join(base, `case-${seq}`);
  execFileSync('mkdir', ['-p', dir]);
  writeFileSync(file(), HAND_WRITTEN);
});

describe('agents tool|skill|actor add and remove keep the rest of the file byte for byte', () => {
  it('adds a server, a skill and an actor, each spliced in after the last entry of its section', async () => {
    expect(
      await agents([
        'tool',
        'add',
        'memory',
        '--command',
        'npx',
        '--arg',
        '-y',
        '--arg',
        '@modelcontextprotocol/server-memory',
        '--env',
        'API_KEY=${API_KEY}',
      ]),
    ).toEqual({
      code: 0,
      stdout: 'added server "memory" to agents.yaml\n',
      stderr: '',
    });
    expect(
      (
        await agents([
          'skill',
          'add',
          'notes',
          '--server',
          'memory',
          '--include',
          'read_*',
          '--exclude',
          'read_secret',
          '--override',
          'read_graph:read_only',
          '--required',
        ])
      ).code,
    ).toBe(0);
    expect(
      (
        await agents([
          'actor',
          'add',
          'scribe',
          '--skill',
          'notes',
          '--skill',
          'ops',
          '--execute',
          'deny',
          '--description',
          'Writes things down',
        ])
      ).code,
    ).toBe(0);
    const expected = HAND_WRITTEN.replace(
      '  remote: { url: "http://127.0.0.1:9/mcp" }\n',
      '  remote: { url: "http://127.0.0.1:9/mcp" }\n  memory:\n    command: npx\n    args:\n      - -y\n      - "@modelcontextprotocol/server-memory"\n    env:\n      API_KEY: ${API_KEY}\n',
    )
      .replace(
        '    mcp_servers: [fixture, remote]\n',
        '    mcp_servers: [fixture, remote]\n  notes:\n    mcp_servers:\n      - server: memory\n        include:\n          - read_*\n        exclude:\n          - read_secret\n        required: true\n        overrides:\n          read_graph:\n            read_only: true\n',
      )
      .replace(
        '      permissions: { execute: allow }\n',
        '      permissions: { execute: allow }\n  scribe:\n    description: Writes things down\n    skills:\n      - notes\n      - ops\n    permissions:\n      execute: deny\n',
      );
    expect(read()).toBe(expected);
    const config = await loadAgentsFile(file(), { env: { API_KEY: 'k' } });
    expect(config.servers.memory).toMatchObject({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { API_KEY: 'k' },
      cwd: dir,
    });
    expect(config.skills.notes?.mcpServers[0]).toMatchObject({
      server: 'memory',
      include: ['read_*'],
      exclude: ['read_secret'],
      required: true,
    });
    expect(config.actors.scribe?.permissions.execute).toBe('deny');

    // Removing them again gives back the person's file exactly.
    expect((await agents(['actor', 'remove', 'scribe'])).code).toBe(0);
    expect((await agents(['skill', 'remove', 'notes'])).code).toBe(0);
    expect((await agents(['tool', 'remove', 'memory'])).code).toBe(0);
    expect(read()).toBe(HAND_WRITTEN);
  });

  it('adds a remote server with headers, and lists servers, skills and actors (also as JSON)', async () => {
    expect(
      (
        await agents([
          'tool',
          'add',
          'docs',
          '--url',
          'http://127.0.0.1:3000/mcp',
          '--header',
          'Authorization=Bearer ${DOCS_TOKEN}',
          '--transport',
          'sse',
        ])
      ).code,
    ).toBe(0);
    const list = await agents(['tool', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^fixture +stdio +node \.\/srv\.mjs +skills: ops, web\nremote +streamable-http +http:\/\/127\.0\.0\.1:9\/mcp +skills: web\ndocs +sse +http:\/\/127\.0\.0\.1:3000\/mcp +no skill\n$/,
    );
    expect(JSON.parse((await agents(['tool', 'list', '--json'])).stdout)).toEqual({
      servers: [
        { name: 'fixture', transport: 'stdio', target: 'node ./srv.mjs', skills: ['ops', 'web'] },
        { name: 'remote', transport: 'streamable-http', target: 'http://127.0.0.1:9/mcp', skills: ['web'] },
        { name: 'docs', transport: 'sse', target: 'http://127.0.0.1:3000/mcp', skills: [] },
      ],
    });
    expect(JSON.parse((await agents(['skill', 'list', '--json'])).stdout)).toEqual({
      skills: [
        { name: 'ops', servers: ['fixture'] },
        { name: 'web', servers: ['fixture', 'remote'] },
      ],
    });
    expect(JSON.parse((await agents(['actor', 'list', '--json'])).stdout)).toEqual({
      actors: [{ name: 'helper', skills: ['ops'], execute: 'allow' }],
    });
    expect(read()).toContain(
      '  docs:\n    transport: sse\n    url: http://127.0.0.1:3000/mcp\n    headers:\n      Authorization: Bearer ${DOCS_TOKEN}\n',
    );
  });

  it('refuses to remove a server a skill uses; --force unlinks it and says from what', async () => {
    const refused = await agents(['tool', 'remove', 'fixture']);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error [INVALID_ARGUMENT]: server "fixture" is used by skills ops, web; remove it there first, or run again with --force to unlink it\n',
    });
    expect(read()).toBe(HAND_WRITTEN);
    const forced = await agents(['tool', 'remove', 'fixture', '--force']);
    expect(forced.stdout).toBe(
      'removed server "fixture" from agents.yaml; unlinked it from skills ops, web; dropped its overrides fixture/echo\n',
    );
    expect(read()).toBe(
      HAND_WRITTEN.replace('  fixture:\n    command: node   # aligned comment\n    args: [ "./srv.mjs" ]\n', '')
        .replace('    mcp_servers:\n      - fixture     # every tool\n', '    mcp_servers: []\n')
        .replace('[fixture, remote]', '[ remote ]')
        .replace('tools:\n  fixture/echo:\n    overrides: { read_only: true }\n', 'tools: {}\n'),
    );
    expect((await agents(['validate'])).code).toBe(0);
  });

  it('refuses to remove a skill an actor uses unless --force', async () => {
    expect((await agents(['skill', 'remove', 'ops'])).stderr).toBe(
      'error [INVALID_ARGUMENT]: skill "ops" is used by actor helper; remove it there first, or run again with --force to unlink it\n',
    );
    expect((await agents(['skill', 'remove', 'ops', '--force'])).stdout).toBe(
      'removed skill "ops" from agents.yaml; unlinked it from actor helper\n',
    );
    expect(read()).toContain('  helper:\n      skills: []\n      permissions: { execute: allow }\n');
  });
});

describe('agents tool add --check', () => {
  it('starts the server once, lists its tools, then writes; a server that cannot start is not written', async () => {
    const ok = await agents(['tool', 'add', 'fx', '--command', process.execPath, '--arg', fixtureServerPath(), '--check']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^added server "fx" to agents\.yaml\nserver "fx" started and lists \d+ tools: .*\becho\b/);
    expect(read()).toContain('  fx:\n    command: ');
    const before = read();
    const bad = await agents(['tool', 'add', 'broken', '--command', process.execPath, '--arg', './no-such-server.mjs', '--check']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error \[CONFIG_INVALID\]: nothing was written: server "broken" did not start \(.*\)\n$/);
    expect(read()).toBe(before);
  });
});

describe('every mistake is one line, exit 2 (the command line) or 1 (the file), and the file unchanged', () => {
  const cases: [string, readonly string[], 1 | 2, RegExp][] = [
    ['an unknown flag', ['tool', 'add', 'x', '--command', 'node', '--bogus'], 2, /^error: unknown flag --bogus for agents tool add/],
    ['a bad --env', ['tool', 'add', 'x', '--command', 'node', '--env', 'NOVALUE'], 2, /^error: --env needs NAME=value, got "NOVALUE"/],
    [
      'both --command and --url',
      ['tool', 'add', 'x', '--command', 'node', '--url', 'http://127.0.0.1:1/'],
      2,
      /needs --command <program> .* or --url <url> .*, not both/,
    ],
    [
      'neither --command nor --url',
      ['tool', 'add', 'x'],
      2,
      /^error: agents tool add needs --command <program> \(a local server\) or --url <url> \(a remote one\)$/m,
    ],
    [
      'a program that does not exist',
      ['tool', 'add', 'x', '--command', './no-such-program'],
      1,
      /^error \[CONFIG_INVALID\]: nothing was written: servers\.x\.command: \S+no-such-program does not exist/,
    ],
    ['--arg with --url', ['tool', 'add', 'x', '--url', 'http://127.0.0.1:1/', '--arg', 'a'], 2, /^error: --arg is for a local server/],
    ['a bad server name', ['tool', 'add', 'has space', '--command', 'node'], 2, /^error: server name "has space" is not valid/],
    [
      'a name that exists',
      ['tool', 'add', 'fixture', '--command', 'node'],
      1,
      /^error \[DUPLICATE_NAME\]: server "fixture" is already in agents\.yaml/,
    ],
    ['a bad url', ['tool', 'add', 'x', '--url', 'ftp://example'], 1, /^error \[CONFIG_INVALID\]: nothing was written: servers\.x\.url: /],
    [
      'an unknown transport',
      ['tool', 'add', 'x', '--command', 'node', '--transport', 'pigeon'],
      1,
      /^error \[CONFIG_INVALID\]: nothing was written: servers\.x\.transport: /,
    ],
    [
      'an unknown server in a skill',
      ['skill', 'add', 's', '--server', 'fixtrue'],
      1,
      /^error \[NOT_FOUND\]: server "fixtrue" is not in agents\.yaml; did you mean "fixture"\?/,
    ],
    ['a skill without --server', ['skill', 'add', 's'], 2, /^error: agents skill add needs --server <server>/],
    [
      'a bad --override',
      ['skill', 'add', 's', '--server', 'fixture', '--override', 'echo:sometimes'],
      2,
      /^error: --override needs TOOL:read_only\|writes\|destructive/,
    ],
    [
      'an override include leaves out',
      ['skill', 'add', 's', '--server', 'fixture', '--include', 'a*', '--override', 'echo:writes'],
      1,
      /nothing was written: skills\.s\.mcp_servers\.0\.overrides\.echo: overrides tool "echo", which include does not match/,
    ],
    ['a skill that exists', ['skill', 'add', 'ops', '--server', 'fixture'], 1, /^error \[DUPLICATE_NAME\]: skill "ops" is already/],
    [
      'an unknown skill in an actor',
      ['actor', 'add', 'a', '--skill', 'opz'],
      1,
      /^error \[NOT_FOUND\]: skill "opz" is not in agents\.yaml; did you mean "ops"\?/,
    ],
    ['a bad --execute', ['actor', 'add', 'a', '--execute', 'maybe'], 2, /^error: --execute must be one of allow, ask, deny/],
    [
      'removing what is not there',
      ['tool', 'remove', 'fixtur'],
      1,
      /^error \[NOT_FOUND\]: server "fixtur" is not in agents\.yaml; did you mean "fixture"\?/,
    ],
    ['an unknown subcommand', ['tool', 'ad', 'x'], 2, /^error: unknown subcommand "tool ad"; did you mean "tool add"\?/],
    ['a missing name', ['actor', 'remove'], 2, /^error: agents actor remove <name>: <name> is missing/],
    ['init over a file', ['init'], 1, /^error \[DUPLICATE_NAME\]: agents\.yaml exists already/],
  ];
  it.each(cases)('%s', async (_what, args, code, message) => {
    const before = statSync(file()).mtimeMs;
    const result = await agents(args);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(read()).toBe(HAND_WRITTEN);
    expect(statSync(file()).mtimeMs).toBe(before);
    expect(readdirSync(dir)).toEqual(['agents.yaml']);
  });

  it('refuses to edit a file that is not valid YAML, naming the place', async () => {
    writeFileSync(file(), 'servers:\n  a: [unclosed\n');
    const result = await agents(['tool', 'add', 'x', '--command', 'node']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error \[CONFIG_INVALID\]: agents\.yaml:\d+:\d+: .*; fix the file first/);
    expect(read()).toBe('servers:\n  a: [unclosed\n');
  });
});

/** Spawns a tool add that pauses between writing the temporary file and the rename. */
function pausedAdd(pauseMs: number): { child: ChildProcess; paused: Promise<string>; done: Promise<number | null> } {
  const child = spawn(process.execPath, [agentsBin, 'tool', 'add', 'memory', '--command', 'npx'], {
    cwd: dir,
    env: { ...process.env, MCP_ACTORS_TEST_PAUSE_BEFORE_RENAME_MS: String(pauseMs) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const paused = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /paused before rename: (.*)\n/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', () => reject(new Error(`exited before pausing: ${stderr}`)));
  });
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, paused, done };
}

describe('writes are atomic and refuse a concurrent edit', () => {
  it('a kill -9 between writing the temporary file and the rename leaves the old file whole', async () => {
    const { child, paused, done } = pausedAdd(60_000);
    const temporary = await paused;
    expect(readFileSync(temporary, 'utf8')).toContain('  memory:\n    command: npx\n');
    child.kill('SIGKILL');
    await done;
    expect(read()).toBe(HAND_WRITTEN);
    expect(existsSync(temporary)).toBe(true);
    // The next edit is not disturbed by the temporary file left behind, and removes it (its process is gone).
    expect((await agents(['tool', 'add', 'memory', '--command', 'npx'])).code).toBe(0);
    expect(read()).toContain('  memory:\n    command: npx\n');
    expect(existsSync(temporary)).toBe(false);
  });

  it('a file changed by someone else while the edit was made is not overwritten', async () => {
    const { paused, done } = pausedAdd(1_500);
    await paused;
    const theirs = `${HAND_WRITTEN}# edited by someone else\n`;
    writeFileSync(file(), theirs);
    expect(await done).toBe(1);
    expect(read()).toBe(theirs);
  });

  it('a kill -9 at 50 random moments of an edit leaves the old file or the new one, each whole', async () => {
    const after = HAND_WRITTEN.replace(
      '  remote: { url: "http://127.0.0.1:9/mcp" }\n',
      '  remote: { url: "http://127.0.0.1:9/mcp" }\n  memory:\n    command: npx\n',
    );
    // How long one edit takes here with five running at once, so the kills spread over its whole life.
    const lives = await Promise.all(
      [0, 1, 2, 3, 4].map(async (index) => {
        const folder = join(dir, `lane-${index}`);
        execFileSync('mkdir', ['-p', folder]);
        writeFileSync(join(folder, 'agents.yaml'), HAND_WRITTEN);
        const started = Date.now();
        await new Promise((resolve) =>
          execFile(process.execPath, [agentsBin, 'tool', 'add', 'memory', '--command', 'npx'], { cwd: folder }, resolve),
        );
        expect(readFileSync(join(folder, 'agents.yaml'), 'utf8')).toBe(after);
        return Date.now() - started;
      }),
    );
    const lifeMs = Math.max(...lives);
    const outcomes = { old: 0, new: 0 };
    // Five lanes of ten kills, each lane in a folder of its own.
    const lane = async (index: number): Promise<void> => {
      const folder = join(dir, `lane-${index}`);
      execFileSync('mkdir', ['-p', folder]);
      const path = join(folder, 'agents.yaml');
      for (let round = 0; round < 10; round += 1) {
        writeFileSync(path, HAND_WRITTEN);
        const child = spawn(process.execPath, [agentsBin, 'tool', 'add', 'memory', '--command', 'npx'], { cwd: folder, stdio: 'ignore' });
        const exited = new Promise((resolve) => child.on('exit', resolve));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * lifeMs * 1.3));
        child.kill('SIGKILL');
        await exited;
        const now = readFileSync(path, 'utf8');
        expect([HAND_WRITTEN, after]).toContain(now);
        outcomes[now === after ? 'new' : 'old'] += 1;
      }
    };
    await Promise.all([0, 1, 2, 3, 4].map(lane));
    expect(outcomes.old + outcomes.new).toBe(50);
    console.info(
      `kill -9 at 50 random moments: ${outcomes.old} left the old file, ${outcomes.new} the new one (one edit ~${lifeMs} ms here)`,
    );
  }, 240_000);
});

describe('agents init', () => {
  it('writes a commented starter file that validates and that the commands then fill in', async () => {
    rmSync(file());
    expect((await agents(['init'])).code).toBe(0);
    const starter = read();
    expect(starter).toMatch(/^# agents\.yaml/);
    expect(starter.split('\n').filter((line) => line.trimStart().startsWith('#')).length).toBeGreaterThan(10);
    expect((await agents(['validate'])).code).toBe(0);
    expect((await agents(['tool', 'add', 'fx', '--command', 'node', '--arg', './srv.mjs'])).code).toBe(0);
    expect((await agents(['skill', 'add', 'ops', '--server', 'fx'])).code).toBe(0);
    expect((await agents(['actor', 'add', 'helper', '--skill', 'ops'])).code).toBe(0);
    const config = await loadAgentsFile(file(), { env: {} });
    expect(Object.keys(config.servers)).toEqual(['fx']);
    expect(config.actors.helper?.skills).toEqual(['ops']);
    // Every comment of the starter is still there.
    for (const line of starter.split('\n').filter((l) => l.trimStart().startsWith('#'))) expect(read()).toContain(line);
  });
});

describe('agents import merges into the file', () => {
  const CLAUDE = {
    mcpServers: {
      github: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_abc123secret', LOG_LEVEL: 'debug' },
      },
      linear: { url: 'https://mcp.linear.app/mcp', headers: { Authorization: 'Bearer lin_api_XYZsecret' } },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_TOKEN: '${MEMORY_TOKEN}' } },
      old: { command: 'npx', disabled: true },
    },
  };
  const writeJson = (name: string, value: unknown): void => {
    execFileSync('mkdir', ['-p', join(dir, name, '..')]);
    writeFileSync(join(dir, name), JSON.stringify(value, null, 2));
  };

  it('adds servers to a file that has servers, keeping it byte for byte, and turns literal secrets into ${VAR}', async () => {
    writeJson('claude_desktop_config.json', CLAUDE);
    const result = await agents(['import', 'claude_desktop_config.json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'added github, linear, memory in agents.yaml from claude_desktop_config.json; left out (disabled): old',
        'literal secrets became ${VAR} references; set them where the runtime runs (not in agents.yaml):',
        "export GITHUB_PERSONAL_ACCESS_TOKEN='ghp_abc123secret'",
        "export LINEAR_AUTHORIZATION='lin_api_XYZsecret'",
        '',
      ].join('\n'),
    );
    const text = read();
    expect(text).not.toContain('ghp_abc123secret');
    expect(text).not.toContain('lin_api_XYZsecret');
    expect(text.startsWith(HAND_WRITTEN.slice(0, HAND_WRITTEN.indexOf('\n# overrides')))).toBe(true);
    expect(text).toContain(
      '  remote: { url: "http://127.0.0.1:9/mcp" }\n  github:\n    command: npx\n    args:\n      - -y\n      - "@modelcontextprotocol/server-github"\n    env:\n      GITHUB_PERSONAL_ACCESS_TOKEN: ${GITHUB_PERSONAL_ACCESS_TOKEN}\n      LOG_LEVEL: debug\n',
    );
    expect(text).toContain(
      '  linear:\n    url: https://mcp.linear.app/mcp\n    headers:\n      Authorization: Bearer ${LINEAR_AUTHORIZATION}\n',
    );
    expect(text.endsWith(HAND_WRITTEN.slice(HAND_WRITTEN.indexOf('\n# overrides')))).toBe(true);
    const config = await loadAgentsFile(file(), {
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_abc123secret', LINEAR_AUTHORIZATION: 'lin_api_XYZsecret', MEMORY_TOKEN: 'm' },
    });
    expect(config.servers.linear?.headers).toEqual({ Authorization: 'Bearer lin_api_XYZsecret' });
    expect(config.servers.memory?.env).toEqual({ MEMORY_TOKEN: 'm' });
  });

  it('refuses a name that exists unless --replace, and imports under --prefix', async () => {
    writeJson('.cursor/mcp.json', { mcpServers: { fixture: { command: 'node', args: ['other.mjs'] }, extra: { command: 'node' } } });
    const refused = await agents(['import', '.cursor/mcp.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error [DUPLICATE_NAME]: server fixture is already in agents.yaml; nothing was imported: run again with --replace, or --prefix <p> to import under other names\n',
    );
    expect(read()).toBe(HAND_WRITTEN);
    const prefixed = await agents(['import', '.cursor/mcp.json', '--prefix', 'cursor-']);
    expect(prefixed.stdout).toBe('added cursor-fixture, cursor-extra in agents.yaml from mcp.json\n');
    const replaced = await agents(['import', '.cursor/mcp.json', '--replace']);
    expect(replaced.stdout).toBe('added extra; replaced fixture in agents.yaml from mcp.json\n');
    expect(read()).toContain('  fixture:\n    command: node\n    args:\n      - other.mjs\n  remote:');
    expect((await agents(['validate'])).code).toBe(0);
  });

  it('writes into the file --into names, creating it', async () => {
    writeJson('.mcp.json', { mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } });
    const result = await agents(['import', '.mcp.json', '--into', 'team.yaml']);
    expect(result.code).toBe(0);
    expect(readFileSync(join(dir, 'team.yaml'), 'utf8')).toBe(
      'servers:\n  memory:\n    command: npx\n    args:\n      - -y\n      - "@modelcontextprotocol/server-memory"\n',
    );
    expect(read()).toBe(HAND_WRITTEN);
  });
});

describe('literal secrets never land in agents.yaml', () => {
  it('tool add writes a secret-looking --env or --header as ${VAR}, without reusing a name the file references, and prints the export line', async () => {
    writeFileSync(
      file(),
      HAND_WRITTEN.replace('    args: [ "./srv.mjs" ]\n', '    args: [ "./srv.mjs" ]\n    env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" }\n'),
    );
    const before = read();
    const stdio = await agents([
      'tool',
      'add',
      'gh',
      '--command',
      'node',
      '--arg',
      './gh.mjs',
      '--env',
      'GITHUB_TOKEN=ghp_abc123secret',
      '--env',
      'LOG_LEVEL=debug',
    ]);
    expect(stdio).toEqual({
      code: 0,
      stdout: [
        'added server "gh" to agents.yaml',
        'literal secrets became ${VAR} references; set them where the runtime runs (not in agents.yaml):',
        "export GH_GITHUB_TOKEN='ghp_abc123secret'",
        '',
      ].join('\n'),
      stderr: '',
    });
    const remote = await agents([
      'tool',
      'add',
      'docs',
      '--url',
      'http://127.0.0.1:9/mcp',
      '--header',
      'Authorization=Bearer lin_api_XYZsecret',
      '--header',
      'X-Trace=on',
    ]);
    expect(remote.code).toBe(0);
    expect(remote.stdout).toContain("export DOCS_AUTHORIZATION='lin_api_XYZsecret'");
    const text = read();
    expect(text).not.toContain('ghp_abc123secret');
    expect(text).not.toContain('lin_api_XYZsecret');
    // Only the new entries were added: the file before them is there byte for byte.
    expect(text.startsWith(before.slice(0, before.indexOf('\n# overrides')))).toBe(true);
    const config = await loadAgentsFile(file(), {
      env: { GITHUB_TOKEN: 'theirs', GH_GITHUB_TOKEN: 'ghp_abc123secret', DOCS_AUTHORIZATION: 'lin_api_XYZsecret' },
    });
    expect(config.servers.fixture?.env).toEqual({ GITHUB_TOKEN: 'theirs' });
    expect(config.servers.gh?.env).toEqual({ GITHUB_TOKEN: 'ghp_abc123secret', LOG_LEVEL: 'debug' });
    expect(config.servers.docs?.headers).toEqual({ Authorization: 'Bearer lin_api_XYZsecret', 'X-Trace': 'on' });
  });

  it('tool add keeps a value that is already a reference, and writes nothing secret-free as a reference', async () => {
    const result = await agents(['tool', 'add', 'plain', '--command', 'node', '--env', 'API_KEY=${API_KEY}', '--env', 'MODE=fast']);
    expect(result).toEqual({ code: 0, stdout: 'added server "plain" to agents.yaml\n', stderr: '' });
    expect(read()).toContain('  plain:\n    command: node\n    env:\n      API_KEY: ${API_KEY}\n      MODE: fast\n');
  });

  it('import does not reuse a variable the file already references for a server it keeps', async () => {
    writeFileSync(
      file(),
      HAND_WRITTEN.replace(
        '    args: [ "./srv.mjs" ]\n',
        '    args: [ "./srv.mjs" ]\n    env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_PERSONAL_ACCESS_TOKEN}" }\n',
      ),
    );
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({ mcpServers: { github: { command: 'npx', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_other' } } } }),
    );
    const result = await agents(['import', 'mcp.json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("export GITHUB_GITHUB_PERSONAL_ACCESS_TOKEN='ghp_other'");
    expect(read()).toContain('      GITHUB_PERSONAL_ACCESS_TOKEN: ${GITHUB_GITHUB_PERSONAL_ACCESS_TOKEN}\n');
  });
});
