/**
 * Agent Skills (agentskills.io): a folder with a `SKILL.md` whose YAML front matter has `name`
 * and `description`. Each becomes a read-only tool (`source: 'agent-skill'`): listing shows the
 * description, a call returns the instructions and the bundled files, and a call with `file`
 * returns one bundled file — the progressive disclosure the standard intends.
 */
import { readdir, readFile, realpath } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../errors/config-error.js';
import { inferCapabilities } from './capabilities.js';
import type { ToolDescriptor, ToolHandler, ToolResult } from './tool-descriptor.js';

export interface AgentSkill {
  readonly name: string;
  readonly description: string;
  /** The body of SKILL.md after the front matter. */
  readonly instructions: string;
  /** Other files in the folder, relative to it, sorted. */
  readonly files: readonly string[];
  readonly dir: string;
}

const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const AGENT_SKILL_NAMESPACE = 'agent-skill';

/** Reads and checks one skill folder; a broken one is a ConfigError naming the file. */
export async function loadAgentSkill(dir: string): Promise<AgentSkill> {
  const root = await realpath(dir).catch((cause: unknown) => {
    throw new ConfigError([{ path: dir, problem: 'the Agent Skill folder does not exist', hint: 'check the path in agent_skills' }], {
      cause,
    });
  });
  const file = join(root, 'SKILL.md');
  const text = await readFile(file, 'utf8').catch((cause: unknown) => {
    throw new ConfigError([{ path: file, problem: 'the folder has no SKILL.md', hint: 'an Agent Skill is a folder with a SKILL.md' }], {
      cause,
    });
  });
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) {
    throw new ConfigError([
      { path: file, problem: 'SKILL.md has no YAML front matter', hint: 'start it with ---, name: ..., description: ..., ---' },
    ]);
  }
  let front: unknown;
  try {
    front = parseYaml(match[1] ?? '');
  } catch (cause) {
    throw new ConfigError([{ path: file, problem: `the front matter is not valid YAML (${(cause as Error).message})` }], { cause });
  }
  const fields = (typeof front === 'object' && front !== null ? front : {}) as Record<string, unknown>;
  const problems = [];
  const { name, description } = fields;
  if (typeof name !== 'string' || !NAME_PATTERN.test(name) || name.length > 64) {
    problems.push({
      path: `${file}: name`,
      problem: 'must be lowercase letters, digits and single hyphens, at most 64 characters',
      hint: 'e.g. name: pdf-tools',
    });
  }
  if (typeof description !== 'string' || description.trim() === '' || description.length > 1024) {
    problems.push({
      path: `${file}: description`,
      problem: 'must be a non-empty text of at most 1024 characters',
      hint: 'say what the skill does and when to use it',
    });
  }
  // A name or description that is not a string is among the problems.
  if (problems.length > 0 || typeof name !== 'string' || typeof description !== 'string')
    throw new ConfigError(problems, { subject: 'Agent Skill' });
  return {
    name,
    description: description.trim(),
    instructions: (match[2] ?? '').trim(),
    files: (await listFiles(root)).filter((f) => f !== 'SKILL.md'),
    dir: root,
  };
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return (
    entries
      .filter((entry) => entry.isFile())
      // `parentPath` is there from Node 20.12 on (the package needs 20.19 or later).
      .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
      .sort()
  );
}

/** The registry record and handler of an Agent Skill. */
export function agentSkillTool(skill: AgentSkill): { descriptor: ToolDescriptor; handler: ToolHandler } {
  const inference = {
    toolName: skill.name,
    overrides: [{ at: `agent skill ${skill.name} (instructions only)`, values: { readOnly: true, openWorld: false } }],
  };
  const inferred = inferCapabilities(inference);
  const descriptor: ToolDescriptor = {
    name: `${AGENT_SKILL_NAMESPACE}/${skill.name}`,
    namespace: AGENT_SKILL_NAMESPACE,
    toolName: skill.name,
    description: skill.description,
    inputSchema: {
      type: 'object',
      properties: { file: { type: 'string', description: 'A bundled file to read, as listed by a call without arguments' } },
      additionalProperties: false,
    },
    outputSchema: undefined,
    annotations: { readOnlyHint: true },
    source: 'agent-skill',
    sourceMetadata: { dir: skill.dir },
    capabilities: inferred.capability,
    provenance: inferred.provenance,
    checkpointable: true,
    inference,
  };
  const handler: ToolHandler = async (args) => {
    const started = performance.now();
    const done = (text: string, data: unknown): ToolResult => ({
      success: true,
      content: [{ type: 'text', text }],
      data,
      error: undefined,
      errorCode: undefined,
      durationMs: performance.now() - started,
    });
    const file = args.file;
    if (file === undefined) {
      const listing =
        skill.files.length > 0
          ? `\n\nBundled files (call again with { "file": "<path>" }):\n${skill.files.map((f) => `- ${f}`).join('\n')}`
          : '';
      return done(`${skill.instructions}${listing}`, { instructions: skill.instructions, files: skill.files });
    }
    if (typeof file !== 'string' || !skill.files.includes(file)) {
      return {
        success: false,
        content: [],
        data: undefined,
        error: `"${String(args.file)}" is not a file of skill ${skill.name}; its files are: ${skill.files.join(', ') || 'none'}`,
        errorCode: 'VALIDATION',
        durationMs: performance.now() - started,
      };
    }
    const path = resolve(skill.dir, file);
    return done(await readFile(path, 'utf8'), { file });
  };
  return { descriptor, handler };
}
