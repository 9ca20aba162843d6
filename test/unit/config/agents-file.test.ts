import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SERVER_CONFIG_DEFAULTS,
  agentsConfigFromObject,
  agentsFileSchema,
  loadAgentsFile,
  overridesFor,
  parseAgentsConfig,
  skillIncludesTool,
  toolPatternMatches,
} from '../../../src/config/index.js';
import { type ConfigError, isConfigError } from '../../../src/errors/index.js';
import { problemAt } from '../../support/config-problems.js';
import { thrownBy } from '../../support/rejection.js';
import { stringContaining } from '../../support/matchers.js';

const FULL_EXAMPLE = `servers:
  github:                    # server name = the key
    transport: stdio
    command: npx
    args: [-y, "@modelcontextprotocol/server-github"]
    env: { GITHUB_TOKEN: "\${GITHUB_TOKEN}" }
    restart: permanent
    start_timeout_ms: 20000
    trusted: false
  files:
    command: node
    args: [server.js, "\${SANDBOX_ROOT}"]
tools:
  github/create_issue:
    overrides: { read_only: false, writes: true, destructive: false }
skills:
  triage:
    description: Read and label issues
    mcp_servers:
      - github
      - server: files
        include: [read_*, list_directory, move_file]
        exclude: [write_file]
        required: true
        overrides:
          move_file: { read_only: false }
    tools: [builtin/now, custom/summarise]
    agent_skills: [./skills/pdf]
actors:
  triager:
    description: Files and labels issues
    skills: [triage]
    permissions:
      execute: ask
      restricted: []
    tenant_key: org_id
`;

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-agents-'));
  mkdirSync(join(dir, 'skills', 'pdf'), { recursive: true });
  writeFileSync(join(dir, 'skills', 'pdf', 'SKILL.md'), '---\nname: pdf\n---\n');
  mkdirSync(join(dir, 'skills', 'lower'), { recursive: true });
  writeFileSync(join(dir, 'skills', 'lower', 'skill.md'), '');
  mkdirSync(join(dir, 'skills', 'empty'), { recursive: true });
  file = join(dir, 'agents.yaml');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { GITHUB_TOKEN: 'ghp_test' };

/** The ConfigError that parsing `text` as agents.yaml throws; fails the test if there is none. */
function errorOf(text: string, options: { env?: Record<string, string | undefined>; file?: string } = {}): ConfigError {
  return thrownBy(
    () => parseAgentsConfig(text, { file: options.file ?? 'agents.yaml', env: options.env ?? env, baseDir: dir }),
    isConfigError,
    'expected a ConfigError, but the file was accepted',
  );
}

const server = (overrides: Record<string, unknown>) => ({
  cwd: undefined,
  url: undefined,
  headers: {},
  roots: [],
  env: {},
  ...SERVER_CONFIG_DEFAULTS,
  ...overrides,
});

describe('parseAgentsConfig reads a valid file', () => {
  it('turns the full example into the exact AgentsConfig', () => {
    const config = parseAgentsConfig(FULL_EXAMPLE, { file, env });
    expect(config).toEqual({
      servers: {
        github: server({
          name: 'github',
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_TOKEN: 'ghp_test' },
          restart: 'permanent',
          startTimeoutMs: 20000,
          trusted: false,
          cwd: dir, // a server runs in the folder of the file that declares it
        }),
        files: server({ name: 'files', transport: 'stdio', command: 'node', args: ['server.js', '${SANDBOX_ROOT}'], cwd: dir }),
      },
      tools: { 'github/create_issue': { overrides: { readOnly: false, writes: true, destructive: false } } },
      skills: {
        triage: {
          name: 'triage',
          description: 'Read and label issues',
          mcpServers: [
            { server: 'github', required: false, overrides: {} },
            {
              server: 'files',
              include: ['read_*', 'list_directory', 'move_file'],
              exclude: ['write_file'],
              required: true,
              overrides: { move_file: { readOnly: false } },
            },
          ],
          tools: ['builtin/now', 'custom/summarise'],
          agentSkills: [join(dir, 'skills', 'pdf')],
        },
      },
      actors: {
        triager: {
          name: 'triager',
          description: 'Files and labels issues',
          skills: ['triage'],
          permissions: { execute: 'ask', restricted: [] },
          tenantKey: 'org_id',
        },
      },
      source: file,
    });
  });

  it('returns a frozen configuration', () => {
    const config = parseAgentsConfig(FULL_EXAMPLE, { file, env });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.skills.triage?.mcpServers[1]?.overrides)).toBe(true);
    expect(Object.isFrozen(config.actors.triager?.permissions)).toBe(true);
  });

  it('fills in the defaults of actors and skills', () => {
    const config = parseAgentsConfig('skills:\n  s: {}\nactors:\n  a: {}\n', { env });
    expect(config.skills.s).toEqual({ name: 's', mcpServers: [], tools: [], agentSkills: [] });
    expect(config.actors.a).toEqual({ name: 'a', skills: [], permissions: { execute: 'ask', restricted: [] }, tenantKey: 'org_id' });
    expect(config.source).toBeUndefined();
  });

  it('reads an empty file, a file of comments and empty sections as an empty configuration', () => {
    const empty = { servers: {}, tools: {}, skills: {}, actors: {} };
    expect(parseAgentsConfig('', { env })).toEqual(empty);
    expect(parseAgentsConfig('# nothing yet\n', { env })).toEqual(empty);
    expect(parseAgentsConfig('servers:\ntools:\nskills:\nactors:\n', { env })).toEqual(empty);
  });

  it('refuses the camelCase spellings of its keys, pointing to the snake_case key', () => {
    const error = errorOf(
      'servers:\n  m:\n    command: npx\n    startTimeoutMs: 5000\nskills:\n  s:\n    mcpServers: [m]\n    mcp_servers:\n      - server: m\n        overrides: { t: { readOnly: true } }\nactors:\n  a:\n    tenantKey: tenant\n',
    );
    expect(problemAt(error, 'servers.m.startTimeoutMs')).toEqual({
      path: 'servers.m.startTimeoutMs',
      problem: 'agents.yaml:4:5: is not a known key',
      hint: 'did you mean "start_timeout_ms"?',
    });
    expect(problemAt(error, 'skills.s.mcpServers').hint).toBe('did you mean "mcp_servers"?');
    expect(problemAt(error, 'skills.s.mcp_servers.0.overrides.t.readOnly').hint).toBe('did you mean "read_only"?');
    expect(problemAt(error, 'actors.a.tenantKey').hint).toBe('did you mean "tenant_key"?');
    expect(error.problems).toHaveLength(4);
  });

  it('merges YAML anchors with <<, and ignores top-level x- keys that hold them', () => {
    const text = [
      'x-defaults: &defaults',
      '  restart: transient',
      '  start_timeout_ms: 5000',
      '  env: { TOKEN: "${UNUSED_ANCHOR_VARIABLE:-unused}" }',
      'servers:',
      '  a:',
      '    <<: *defaults',
      '    command: node',
      '  b: *defaults',
    ].join('\n');
    const error = errorOf(text);
    expect(error.problems.map((p) => p.path)).toEqual(['servers.b.command']);
    const config = parseAgentsConfig(text.split('\n').slice(0, -1).join('\n'), { env });
    expect(config.servers.a).toMatchObject({ restart: 'transient', startTimeoutMs: 5000, command: 'node', env: { TOKEN: 'unused' } });
  });

  it('parses the example file shipped in examples/', async () => {
    const config = await loadAgentsFile('examples/agents.yaml', { env: {} });
    expect(Object.keys(config.servers)).toEqual(['everything', 'memory', 'files']);
    expect(config.servers.everything?.args).toEqual(['../node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio']);
    expect(config.servers.everything?.cwd).toBe(resolve('examples'));
    expect(config.servers.everything?.env).toEqual({ DEMO_GREETING: 'hello from agents.yaml' });
    expect(config.servers.files?.args.at(-1)).toBe('${SANDBOX_ROOT}');
    expect(config.skills.files?.mcpServers[0]?.overrides).toEqual({ move_file: { destructive: false } });
    expect(config.actors.assistant?.skills).toEqual(['notes', 'files']);
    expect(config.source).toBe('examples/agents.yaml');
  });

  it('names only servers whose entry points exist in node_modules, so the demo can run it', async () => {
    const config = await loadAgentsFile('examples/agents.yaml', { env: {} });
    for (const { command, args, cwd } of Object.values(config.servers)) {
      expect(command).toBe('node');
      expect(() => readFileSync(resolve(cwd ?? '', args[0] ?? ''))).not.toThrow();
    }
  });
});

describe('parseAgentsConfig reports every mistake with its path, file:line:col and a hint', () => {
  it('suggests the key a typo meant', () => {
    const problem = problemAt(errorOf('servers:\n  github:\n    comand: npx\n'), 'servers.github.comand');
    expect(problem.problem).toBe('agents.yaml:3:5: is not a known key');
    expect(problem.hint).toBe('did you mean "command"?');
  });

  it('says what to write for a value of the wrong type', () => {
    const problem = problemAt(
      errorOf('servers:\n  github:\n    command: npx\n    start_timeout_ms: "20s"\n'),
      'servers.github.start_timeout_ms',
    );
    expect(problem.problem).toBe('agents.yaml:4:5: must be a number, got "20s" (a string)');
    expect(problem.hint).toContain('write 20000');
  });

  it('places a missing command at the server that lacks it', () => {
    const problem = problemAt(errorOf('servers:\n  files:\n    args: [server.js]\n'), 'servers.files.command');
    expect(problem.problem).toMatch(/^agents\.yaml:2:3: a server needs either command/);
    expect(problem.hint).toContain('command: "npx"');
  });

  it('wraps a YAML syntax error with its line and column', () => {
    const error = errorOf('servers:\n  a: { command: "npx\n');
    expect(error.problems[0]?.problem).toMatch(/^agents\.yaml:3:1: is not valid YAML: Missing closing "quote/);
    expect(error.problems[0]?.hint).toBe('a closing quote or bracket is missing');
  });

  it('reports tabs used for indentation', () => {
    const error = errorOf('servers:\n\tgithub:\n\t\tcommand: npx\n');
    expect(error.problems[0]?.problem).toMatch(/^agents\.yaml:2:1: is not valid YAML: Tabs are not allowed as indentation/);
    expect(error.problems[0]?.hint).toContain('indent with spaces');
  });

  it('reports a key written twice at the second one', () => {
    const problem = problemAt(errorOf('servers:\n  github:\n    command: npx\n  github:\n    command: node\n'), 'servers.github');
    expect(problem.problem).toBe('agents.yaml:4:3: is written twice (YAML map keys must be unique)');
    expect(problem.hint).toContain('merge the two entries');
  });

  it('reports a second YAML document', () => {
    expect(errorOf('servers: {}\n---\nskills: {}\n').problems[0]?.hint).toContain('remove the "---" line');
  });

  it('reports an unknown section with the one it meant', () => {
    const problem = problemAt(errorOf('servers: {}\nskils: {}\n'), 'skils');
    expect(problem).toEqual({ path: 'skils', problem: 'agents.yaml:2:1: is not a known section', hint: 'did you mean "skills"?' });
    expect(problemAt(errorOf('mcpServers: {}\n'), 'mcpServers').hint).toBe('did you mean "servers"?');
    expect(problemAt(errorOf('colours: {}\n'), 'colours').hint).toBe('allowed sections: servers, tools, skills, actors, default_tenant');
  });

  it('rejects a file that is not a mapping of sections', () => {
    expect(problemAt(errorOf('- servers\n'), '').problem).toBe(
      'agents.yaml:1:1: must be a mapping of sections (servers, tools, skills, actors), got a list',
    );
  });

  it('reports a skill naming a server that is not declared, with the one it meant', () => {
    const text = 'servers:\n  github: { command: npx }\nskills:\n  triage:\n    mcp_servers:\n      - githb\n      - server: gihub\n';
    const error = errorOf(text);
    expect(problemAt(error, 'skills.triage.mcp_servers.0')).toEqual({
      path: 'skills.triage.mcp_servers.0',
      problem: 'agents.yaml:6:9: names server "githb", which is not in servers',
      hint: 'did you mean "github"?',
    });
    expect(problemAt(error, 'skills.triage.mcp_servers.1.server').problem).toBe(
      'agents.yaml:7:9: names server "gihub", which is not in servers',
    );
    expect(problemAt(errorOf('skills:\n  s:\n    mcp_servers: [zzz]\n'), 'skills.s.mcp_servers.0').hint).toBe('add it under servers:');
  });

  it('reports an actor naming a skill that is not declared', () => {
    const problem = problemAt(errorOf('skills:\n  triage: {}\nactors:\n  triager:\n    skills: [triag]\n'), 'actors.triager.skills.0');
    expect(problem.problem).toBe('agents.yaml:5:14: names skill "triag", which is not in skills');
    expect(problem.hint).toBe('did you mean "triage"?');
  });

  it('reports read_only and writes both true', () => {
    const text = 'servers:\n  github: { command: npx }\ntools:\n  github/create_issue:\n    overrides: { read_only: true, writes: true }\n';
    const problem = problemAt(errorOf(text), 'tools.github/create_issue.overrides.read_only');
    expect(problem.problem).toBe('agents.yaml:5:18: read_only: true and writes: true contradict each other');
    expect(problem.hint).toContain('keep one of them');
  });

  it('reports contradictions in a skill, alone and merged over the tools section', () => {
    const text = [
      'servers:',
      '  files: { command: node }',
      'tools:',
      '  files/move_file:',
      '    overrides: { writes: true }',
      'skills:',
      '  s:',
      '    mcp_servers:',
      '      - server: files',
      '        overrides:',
      '          move_file: { read_only: true }',
      '          copy_file: { destructive: true, writes: false }',
    ].join('\n');
    const error = errorOf(text);
    const merged = problemAt(error, 'skills.s.mcp_servers.0.overrides.move_file.read_only');
    expect(merged.problem).toBe('agents.yaml:11:24: read_only: true here and writes: true in tools.files/move_file contradict each other');
    expect(merged.hint).toContain('also write writes: false here');
    expect(problemAt(error, 'skills.s.mcp_servers.0.overrides.copy_file.destructive').problem).toContain(
      'destructive: true and writes: false contradict each other',
    );
  });

  it('reports an override of a tool that include or exclude leaves out', () => {
    const text =
      'servers:\n  files: { command: node }\nskills:\n  s:\n    mcp_servers:\n      - server: files\n        include: [read_*]\n        exclude: [read_secret]\n        overrides:\n          read_secret: { read_only: true }\n          move_file: { read_only: false }\n';
    const error = errorOf(text);
    expect(problemAt(error, 'skills.s.mcp_servers.0.overrides.read_secret').problem).toContain('which exclude leaves out ("read_secret")');
    expect(problemAt(error, 'skills.s.mcp_servers.0.overrides.move_file').hint).toBe('add "move_file" to include, or remove the override');
  });

  it('explains names written with their server where only the tool belongs', () => {
    const text =
      'servers:\n  github: { command: npx }\nskills:\n  s:\n    mcp_servers:\n      - server: github\n        include: [github/create_issue]\n        overrides: { github/create_issue: { writes: true } }\n';
    const error = errorOf(text);
    expect(problemAt(error, 'skills.s.mcp_servers.0.include.0').hint).toBe('write "create_issue": the server is given by server');
    expect(problemAt(error, 'skills.s.mcp_servers.0.overrides.github/create_issue').hint).toBe(
      'write "create_issue": the server is given by server',
    );
  });

  it('reports a tools entry whose server is not declared, or whose capabilities lack overrides:', () => {
    const error = errorOf(
      'servers:\n  github: { command: npx }\ntools:\n  githb/create_issue:\n    read_only: true\n  create_issue:\n    overrides: {}\n',
    );
    expect(problemAt(error, 'tools.githb/create_issue').hint).toBe('did you mean "github"?');
    expect(problemAt(error, 'tools.githb/create_issue.read_only').hint).toBe('put it under overrides: overrides: { read_only: true }');
    expect(error.problems.some((p) => p.path === 'tools.githb/create_issue.overrides')).toBe(false);
    expect(problemAt(error, 'tools.create_issue').hint).toBe('write "<server>/create_issue", such as "github/create_issue"');
  });

  it('explains wrong shapes in skills and actors', () => {
    const text = [
      'servers:',
      '  github: { command: npx }',
      'skills:',
      '  s:',
      '    mcp_servers: [github, 3, github, { include: [] }]',
      '    tools: [now]',
      '    servers: []',
      'actors:',
      '  a:',
      '    skills: s',
      '    permissions: { execute: yes, restricted: [builtin/now, builtin/now] }',
      '    tenant_key: "9"',
      '    tools: []',
    ].join('\n');
    const error = errorOf(text);
    expect(problemAt(error, 'skills.s.mcp_servers.1').problem).toContain('must be a server name or a mapping { server, include');
    expect(problemAt(error, 'skills.s.mcp_servers.2').problem).toContain('lists server "github" again (also item 0)');
    expect(problemAt(error, 'skills.s.mcp_servers.3.server')).toMatchObject({
      problem: 'agents.yaml:5:38: is required',
      hint: 'write server: github',
    });
    expect(problemAt(error, 'skills.s.mcp_servers.3.include').hint).toBe('leave include out to include every tool of the server');
    expect(problemAt(error, 'skills.s.tools.0').hint).toBe('write "<namespace>/now", such as "builtin/now"');
    expect(problemAt(error, 'skills.s.servers').hint).toBe('did you mean "mcp_servers"?');
    expect(problemAt(error, 'actors.a.skills')).toMatchObject({
      problem: 'agents.yaml:10:5: must be a list, got "s" (a string)',
      hint: 'write a list: ["s"]',
    });
    expect(problemAt(error, 'actors.a.permissions.execute')).toMatchObject({
      problem: 'agents.yaml:11:20: must be one of "allow", "ask" or "deny", got "yes" (a string)',
      hint: 'use "allow" (run them without asking)',
    });
    expect(problemAt(error, 'actors.a.permissions.restricted.1').problem).toContain('repeats item 0');
    expect(problemAt(error, 'actors.a.tenant_key').problem).toContain('must be a claim name');
    expect(problemAt(error, 'actors.a.tools').hint).toContain('an actor gets its tools through skills');
  });

  it('checks that agent skill folders exist and hold a SKILL.md', () => {
    const error = errorOf('skills:\n  s:\n    agent_skills: [./skills/none, ./skills/lower, ./skills/empty, ./skills/pdf/SKILL.md]\n');
    expect(problemAt(error, 'skills.s.agent_skills.0').problem).toBe(`agents.yaml:3:20: ${join(dir, 'skills', 'none')} does not exist`);
    expect(problemAt(error, 'skills.s.agent_skills.0').hint).toBe(`agent skill paths are relative to ${dir}`);
    expect(problemAt(error, 'skills.s.agent_skills.1').hint).toBe('rename skill.md to SKILL.md');
    expect(problemAt(error, 'skills.s.agent_skills.2').problem).toContain('has no SKILL.md');
    expect(problemAt(error, 'skills.s.agent_skills.3').problem).toContain('is not a folder');
  });

  it('reports a name key that disagrees with the server key, and invalid server names', () => {
    const error = errorOf('servers:\n  github:\n    name: gh\n    command: npx\n  "my server":\n    command: npx\n');
    expect(problemAt(error, 'servers.github.name').problem).toBe(
      'agents.yaml:3:5: is "gh" (a string), but a server is named by its key, "github"',
    );
    expect(problemAt(error, 'servers["my server"]').problem).toContain(
      'is not a valid server name: must be letters, digits, ".", "_" and "-", starting with a letter or digit',
    );
  });

  it('rejects __proto__ and other names that are not plain names', () => {
    const error = errorOf('servers:\n  __proto__:\n    command: x\nskills:\n  __proto__: {}\n  "a b": {}\n');
    expect(problemAt(error, 'servers.__proto__').problem).toContain('is not a valid server name');
    expect(problemAt(error, 'skills.__proto__').problem).toContain('is not a valid name');
    expect(problemAt(error, 'skills["a b"]').hint).toBe('write "a-b"');
    expect(Object.prototype).not.toHaveProperty('command');
  });

  it('lists every problem of the file at once, sorted by line, in the message too', () => {
    const text = 'servers:\n  github:\n    comand: npx\nskils: {}\nactors:\n  a:\n    skills: [nope]\n';
    const error = errorOf(text);
    expect(error.problems.map((p) => p.path)).toEqual(['servers.github.command', 'servers.github.comand', 'skils', 'actors.a.skills.0']);
    expect(error.message).toContain('invalid agents file agents.yaml (4 problems)');
    expect(error.message).toContain('- skils: agents.yaml:4:1: is not a known section — did you mean "skills"?');
    expect(error.details.locations).toContainEqual({ path: 'skils', file: 'agents.yaml', line: 4, col: 1 });
  });

  it('writes <input> for text without a file name', () => {
    expect(() => parseAgentsConfig('skils: {}\n', { env })).toThrow('<input>:1:1: is not a known section');
  });
});

describe('loadAgentsFile', () => {
  it('reads a file and resolves agent skills from its folder', async () => {
    writeFileSync(file, FULL_EXAMPLE);
    const config = await loadAgentsFile(file, { env });
    expect(config.skills.triage?.agentSkills).toEqual([join(dir, 'skills', 'pdf')]);
    expect(config.source).toBe(file);
  });

  it('reports a file that cannot be read', async () => {
    const missing = join(dir, 'missing.yaml');
    await expect(loadAgentsFile(missing)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      problems: [{ path: '', problem: stringContaining(`${missing}: cannot be read`), hint: stringContaining('check the path') }],
    });
  });
});

describe('agentsConfigFromObject', () => {
  it('accepts objects with camelCase or snake_case keys, and gives the same result as the file', () => {
    const fromFile = parseAgentsConfig(FULL_EXAMPLE, { env, baseDir: dir });
    const object = parse(FULL_EXAMPLE) as Record<string, unknown>;
    expect(agentsConfigFromObject(object, { env, baseDir: dir })).toEqual(fromFile);
    const camel = {
      servers: { memory: { command: 'npx', startTimeoutMs: 1000 } },
      skills: { notes: { mcpServers: [{ server: 'memory', overrides: { read_graph: { readOnly: true } } }], agentSkills: [] } },
      actors: { a: { skills: ['notes'], tenantKey: 'tenant', permissions: { execute: 'deny' } } },
    };
    const config = agentsConfigFromObject(camel, { env });
    expect(config.servers.memory?.startTimeoutMs).toBe(1000);
    expect(config.skills.notes?.mcpServers[0]?.overrides).toEqual({ read_graph: { readOnly: true } });
    expect(config.actors.a).toMatchObject({ tenantKey: 'tenant', permissions: { execute: 'deny', restricted: [] } });
  });

  it('reports the same problems without positions', () => {
    try {
      agentsConfigFromObject(
        { servers: { github: { comand: 'npx' } }, skills: { s: { mcpServers: ['githb'], mcp_servers: [] } } },
        { env },
      );
      expect.unreachable();
    } catch (error) {
      if (!isConfigError(error)) throw error;
      expect(error.message).toContain('invalid agents configuration');
      expect(problemAt(error, 'servers.github.comand')).toEqual({
        path: 'servers.github.comand',
        problem: 'is not a known key',
        hint: 'did you mean "command"?',
      });
      expect(problemAt(error, 'skills.s.mcpServers').problem).toBe('repeats "mcp_servers", which is also given');
    }
  });
});

describe('tool selection helpers', () => {
  it('matches exact names and * and ? globs', () => {
    expect(toolPatternMatches('read_file', 'read_file')).toBe(true);
    expect(toolPatternMatches('read_*', 'read_text_file')).toBe(true);
    expect(toolPatternMatches('read_?', 'read_x')).toBe(true);
    expect(toolPatternMatches('read_?', 'read_xy')).toBe(false);
    expect(toolPatternMatches('read.file', 'readXfile')).toBe(false);
  });

  it('applies include, then exclude, and merges overrides key by key', () => {
    const config = parseAgentsConfig(FULL_EXAMPLE, { env, baseDir: dir });
    const [github, files] = config.skills.triage?.mcpServers ?? [];
    if (!github || !files) throw new Error('expected two server entries');
    expect(skillIncludesTool(github, 'anything')).toBe(true);
    expect(skillIncludesTool(files, 'read_text_file')).toBe(true);
    expect(skillIncludesTool(files, 'write_file')).toBe(false);
    expect(overridesFor(config, 'github', 'create_issue', github)).toEqual({ readOnly: false, writes: true, destructive: false });
    expect(overridesFor(config, 'files', 'move_file', files)).toEqual({ readOnly: false });
    expect(overridesFor(config, 'files', 'other')).toEqual({});
  });
});

describe('agentsFileSchema', () => {
  it('is a JSON Schema that accepts the example file, for editors', () => {
    const ajv = new Ajv({ allowUnionTypes: true });
    addFormats.default(ajv, ['uri']);
    const validate = ajv.compile(agentsFileSchema);
    const example = parse(readFileSync('examples/agents.yaml', 'utf8')) as unknown;
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ servers: { x: { comand: 'npx' } } })).toBe(false);
  });
});
