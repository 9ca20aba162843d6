/**
 * How `agents validate` summarizes a valid agents.yaml: each server with its transport and
 * command or url, each skill with its servers and tools, each actor with its skills and
 * permissions.
 */
import type { AgentsConfig } from '../config/agents-file.js';
import { shellWords, textTable } from './text-table.js';

export interface ConfigSummary {
  readonly file: string;
  readonly servers: readonly { name: string; transport: string; command?: string; args?: readonly string[]; url?: string }[];
  readonly skills: readonly {
    name: string;
    description?: string;
    servers: readonly { server: string; required: boolean; include?: readonly string[]; exclude?: readonly string[] }[];
    tools: readonly string[];
    agentSkills: readonly string[];
  }[];
  readonly actors: readonly {
    name: string;
    description?: string;
    skills: readonly string[];
    execute: string;
    restricted: readonly string[];
    tenantKey: string;
  }[];
}

export function summarizeConfig(config: AgentsConfig, file: string): ConfigSummary {
  return {
    file,
    servers: Object.values(config.servers).map((server) => ({
      name: server.name,
      transport: server.transport,
      ...(server.command === undefined ? {} : { command: server.command, args: server.args }),
      ...(server.url === undefined ? {} : { url: server.url }),
    })),
    skills: Object.values(config.skills).map((skill) => ({
      name: skill.name,
      ...(skill.description === undefined ? {} : { description: skill.description }),
      servers: skill.mcpServers.map((ref) => ({
        server: ref.server,
        required: ref.required,
        ...(ref.include === undefined ? {} : { include: ref.include }),
        ...(ref.exclude === undefined || ref.exclude.length === 0 ? {} : { exclude: ref.exclude }),
      })),
      tools: skill.tools,
      agentSkills: skill.agentSkills,
    })),
    actors: Object.values(config.actors).map((actor) => ({
      name: actor.name,
      ...(actor.description === undefined ? {} : { description: actor.description }),
      skills: actor.skills,
      execute: actor.permissions.execute,
      restricted: actor.permissions.restricted,
      tenantKey: actor.tenantKey,
    })),
  };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function formatConfigSummary(summary: ConfigSummary): string {
  const { servers, skills, actors } = summary;
  const lines = [
    `${summary.file} is valid: ${plural(servers.length, 'server')}, ${plural(skills.length, 'skill')}, ${plural(actors.length, 'actor')}`,
  ];
  if (servers.length > 0) {
    const rows = servers.map((s) => [s.name, s.transport, s.url ?? shellWords([s.command ?? '', ...(s.args ?? [])])]);
    lines.push('', 'servers:', textTable(rows, '  '));
  }
  if (skills.length > 0) {
    const rows = skills.map((skill) => {
      const parts = [];
      if (skill.servers.length > 0) parts.push(`servers: ${skill.servers.map(serverRefText).join(', ')}`);
      if (skill.tools.length > 0) parts.push(`tools: ${skill.tools.join(', ')}`);
      if (skill.agentSkills.length > 0) parts.push(`agent skills: ${skill.agentSkills.join(', ')}`);
      return [skill.name, parts.join('; ') || 'no tools'];
    });
    lines.push('', 'skills:', textTable(rows, '  '));
  }
  if (actors.length > 0) {
    const rows = actors.map((actor) => [
      actor.name,
      `skills: ${actor.skills.join(', ') || 'none'}`,
      `execute: ${actor.execute}`,
      `restricted: ${actor.restricted.join(', ') || 'none'}`,
      `tenant key: ${actor.tenantKey}`,
    ]);
    lines.push('', 'actors:', textTable(rows, '  '));
  }
  return `${lines.join('\n')}\n`;
}

/** `files (required; include write_file, read_*; exclude delete_*)`. */
function serverRefText(ref: ConfigSummary['skills'][number]['servers'][number]): string {
  const notes: string[] = [];
  if (ref.required) notes.push('required');
  if (ref.include !== undefined) notes.push(`include ${ref.include.join(', ')}`);
  if (ref.exclude !== undefined) notes.push(`exclude ${ref.exclude.join(', ')}`);
  return notes.length === 0 ? ref.server : `${ref.server} (${notes.join('; ')})`;
}
