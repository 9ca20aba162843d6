/**
 * `SkillRegistry`: skills name MCP servers, built-in and custom tools, and Agent Skills; resolving
 * a list of skills flattens them into one tool set, with each skill's include/exclude lists and
 * its capability overrides at the inclusion point (ADR-029, "MCP Tools as Skills").
 */
import { BehaviorSubject, type Observable } from 'rxjs';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import { agentSkillTool, loadAgentSkill } from './agent-skill.js';
import { inferCapabilities, type CapabilityOverrides } from './capabilities.js';
import type { ToolDescriptor } from './tool-descriptor.js';
import { compileToolFilter } from './tool-filter.js';
import type { ToolRegistry } from './tool-registry.js';

/** One MCP server as a skill includes it. */
export interface SkillServerRef {
  readonly server: string;
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
  /** Whether an actor with this skill must fail to activate when the server cannot start. */
  readonly required?: boolean;
  /** Per-tool overrides at the inclusion point, by the tool's own name; they win over the tool YAML. */
  readonly overrides?: Readonly<Record<string, CapabilityOverrides>>;
}

export interface SkillDefinition {
  readonly name: string;
  readonly description?: string | undefined;
  readonly mcpServers?: readonly (string | SkillServerRef)[];
  /** Built-in and custom tools by full name (`builtin/now`). */
  readonly tools?: readonly string[];
  /** Folders with a SKILL.md. */
  readonly agentSkills?: readonly string[];
}

/** A flattened set of tools and what could not be included. */
export interface ResolvedToolSet {
  readonly tools: readonly ToolDescriptor[];
  /** Servers named by a skill with no tools in the registry (not started, or failed). */
  readonly unavailable: readonly { readonly skill: string; readonly server: string; readonly required: boolean }[];
  /** Built-in or custom tools named by a skill that the registry does not have. */
  readonly missingTools: readonly { readonly skill: string; readonly tool: string }[];
}

/**
 * @example
 * const skills = new SkillRegistry(registry);
 * await skills.define({ name: 'triage', mcpServers: [{ server: 'github', include: ['list_*', 'get_*'] }] });
 * skills.resolve(['triage']).tools.map((tool) => tool.name);
 */
export class SkillRegistry {
  private readonly skills = new Map<string, SkillDefinition>();
  private readonly agentSkillTools = new Map<string, string[]>();
  private readonly resolved = new BehaviorSubject<ReadonlyMap<string, ResolvedToolSet>>(new Map());
  /** Every skill's resolved tool set, updated by `refreshAll()`. */
  readonly resolved$: Observable<ReadonlyMap<string, ResolvedToolSet>> = this.resolved.asObservable();

  constructor(readonly registry: ToolRegistry) {}

  /** Adds or replaces a skill; its Agent Skills are loaded and registered as tools. */
  async define(skill: SkillDefinition): Promise<void> {
    const names: string[] = [];
    for (const dir of skill.agentSkills ?? []) {
      const tool = agentSkillTool(await loadAgentSkill(dir));
      this.registry.register(tool.descriptor, tool.handler);
      names.push(tool.descriptor.name);
    }
    this.skills.set(skill.name, skill);
    this.agentSkillTools.set(skill.name, names);
    this.refreshAll();
  }

  has(name: string): boolean {
    return this.skills.has(name);
  }

  names(): string[] {
    return [...this.skills.keys()];
  }

  /** The MCP servers the given skills name, each once, `required` if any skill requires it. */
  serversOf(skillNames: readonly string[]): { server: string; required: boolean }[] {
    const servers = new Map<string, boolean>();
    for (const skill of this.definitions(skillNames)) {
      for (const ref of (skill.mcpServers ?? []).map(normalise)) {
        servers.set(ref.server, (servers.get(ref.server) ?? false) || (ref.required ?? false));
      }
    }
    return [...servers].map(([server, required]) => ({ server, required }));
  }

  /**
   * Flattens the skills into one tool set. A tool included by two skills appears once; the
   * later skill's overrides win, as they do for two override blocks.
   */
  resolve(skillNames: readonly string[]): ResolvedToolSet {
    const tools = new Map<string, ToolDescriptor>();
    const unavailable: { skill: string; server: string; required: boolean }[] = [];
    const missingTools: { skill: string; tool: string }[] = [];
    for (const skill of this.definitions(skillNames)) {
      for (const ref of (skill.mcpServers ?? []).map(normalise)) {
        const keep = compileToolFilter({ include: ref.include, exclude: ref.exclude });
        // MCP tools and in-process domain tools alike: whatever the registry has from that server.
        const ofServer = this.registry.list().filter((tool) => tool.sourceMetadata.server === ref.server);
        if (ofServer.length === 0) unavailable.push({ skill: skill.name, server: ref.server, required: ref.required ?? false });
        for (const tool of ofServer) {
          if (!keep(tool.toolName)) continue;
          const override = ref.overrides?.[tool.toolName];
          tools.set(
            tool.name,
            override ? withOverride(tool, override, `skills.${skill.name}.mcp_servers.${ref.server}.overrides.${tool.toolName}`) : tool,
          );
        }
      }
      for (const name of [...(skill.tools ?? []), ...(this.agentSkillTools.get(skill.name) ?? [])]) {
        const tool = this.registry.get(name);
        if (tool) tools.set(name, tool);
        else missingTools.push({ skill: skill.name, tool: name });
      }
    }
    return { tools: [...tools.values()], unavailable, missingTools };
  }

  /** Resolves every skill again (after a tool list change) and publishes the result. */
  refreshAll(): ReadonlyMap<string, ResolvedToolSet> {
    const all = new Map([...this.skills.keys()].map((name) => [name, this.resolve([name])] as const));
    this.resolved.next(all);
    return all;
  }

  /** The last resolved tool set of one skill. */
  toolsOf(skill: string): ResolvedToolSet | undefined {
    return this.resolved.getValue().get(skill);
  }

  private definitions(skillNames: readonly string[]): SkillDefinition[] {
    return skillNames.map((name) => {
      const skill = this.skills.get(name);
      if (skill) return skill;
      throw new McpActorsError(
        ErrorCode.NOT_FOUND,
        `no skill named "${name}" is defined; defined skills: ${
          this.names()
            .map((n) => `"${n}"`)
            .join(', ') || 'none'
        }`,
        { details: { skill: name } },
      );
    });
  }
}

function normalise(ref: string | SkillServerRef): SkillServerRef {
  return typeof ref === 'string' ? { server: ref } : ref;
}

function withOverride(tool: ToolDescriptor, values: CapabilityOverrides, at: string): ToolDescriptor {
  const base = tool.inference ?? { toolName: tool.toolName };
  const inference = { ...base, overrides: [...(base.overrides ?? []), { at, values }] };
  const inferred = inferCapabilities(inference);
  return { ...tool, capabilities: inferred.capability, provenance: inferred.provenance, inference };
}
