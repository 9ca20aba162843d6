import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpToolAdapter } from '../../src/adapter/mcp-tool-adapter.js';
import { inferCapabilities } from '../../src/registry/capabilities.js';
import { loadAgentSkill } from '../../src/registry/agent-skill.js';
import { McpRefreshHook } from '../../src/adapter/refresh-hook.js';
import { SkillRegistry, type ResolvedToolSet } from '../../src/registry/skill-registry.js';
import type { ToolDescriptor, ToolSource } from '../../src/registry/tool-descriptor.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import { waitUntil } from '../support/wait.js';
import { stringContaining } from '../support/matchers.js';

let dir: string;
const adapters: McpToolAdapter[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-skills-'));
  const pdf = join(dir, 'pdf-tools');
  mkdirSync(join(pdf, 'scripts'), { recursive: true });
  writeFileSync(
    join(pdf, 'SKILL.md'),
    '---\nname: pdf-tools\ndescription: Fill and merge PDF forms.\n---\n# PDF tools\n\nRun scripts/fill.py with the form.\n',
  );
  writeFileSync(join(pdf, 'scripts', 'fill.py'), 'print("filling")\n');
  writeFileSync(join(pdf, 'reference.md'), 'Field names are case-sensitive.\n');
  mkdirSync(join(dir, 'broken'));
  writeFileSync(join(dir, 'broken', 'SKILL.md'), '---\nname: Not Valid\n---\nbody\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.dispose()));
});

function localTool(source: ToolSource, namespace: string, toolName: string): ToolDescriptor {
  const inference = { toolName };
  const inferred = inferCapabilities(inference);
  return {
    name: `${namespace}/${toolName}`,
    namespace,
    toolName,
    description: `${source} tool`,
    inputSchema: { type: 'object' },
    outputSchema: undefined,
    annotations: undefined,
    source,
    sourceMetadata: {},
    capabilities: inferred.capability,
    provenance: inferred.provenance,
    checkpointable: true,
    inference,
  };
}

async function fixtureAdapter(registry: ToolRegistry, pageSize?: number): Promise<McpToolAdapter> {
  const adapter = new McpToolAdapter(fixtureServerConfig({ name: 'fx', ...(pageSize ? { pageSize } : {}) }));
  adapters.push(adapter);
  await adapter.connect();
  await adapter.registerTools(registry);
  return adapter;
}

describe('SkillRegistry', () => {
  it('flattens MCP, built-in, custom and Agent Skill tools into one set', async () => {
    const registry = new ToolRegistry();
    await fixtureAdapter(registry);
    registry.register(localTool('builtin', 'builtin', 'now'));
    registry.register(localTool('custom', 'custom', 'summarise'));
    const skills = new SkillRegistry(registry);
    await skills.define({
      name: 'reader',
      mcpServers: [{ server: 'fx', include: ['echo', 'annotated_*'], exclude: ['*_delete'] }],
      tools: ['builtin/now'],
    });
    await skills.define({ name: 'writer', mcpServers: ['fx'], tools: ['custom/summarise'], agentSkills: [join(dir, 'pdf-tools')] });
    const reader = skills.resolve(['reader']);
    expect(reader.tools.map((t) => t.name).sort()).toEqual(['builtin/now', 'fx/annotated_read', 'fx/echo']);
    const both = skills.resolve(['reader', 'writer']);
    const sources = new Set(both.tools.map((t) => t.source));
    expect([...sources].sort()).toEqual(['agent-skill', 'builtin', 'custom', 'mcp']);
    expect(both.tools.filter((t) => t.name === 'fx/echo')).toHaveLength(1);
    expect(both.tools.map((t) => t.name)).toContain('agent-skill/pdf-tools');
    expect(skills.serversOf(['reader', 'writer'])).toEqual([{ server: 'fx', required: false }]);
  });

  it('applies overrides at the skill inclusion point, and says where they came from', async () => {
    const registry = new ToolRegistry();
    await fixtureAdapter(registry);
    const skills = new SkillRegistry(registry);
    await skills.define({ name: 'careful', mcpServers: [{ server: 'fx', include: ['echo'], overrides: { echo: { readOnly: true } } }] });
    const echo = skills.resolve(['careful']).tools[0]!;
    expect(registry.get('fx/echo')!.capabilities.readOnly).toBe(false);
    expect(echo.capabilities).toMatchObject({ readOnly: true, writes: false });
    expect(echo.provenance.readOnly).toMatchObject({ source: 'override', detail: stringContaining('skills.careful') });
  });

  it('turns an Agent Skill into a read-only tool that discloses its instructions, then its files', async () => {
    const registry = new ToolRegistry();
    const skills = new SkillRegistry(registry);
    await skills.define({ name: 'docs', agentSkills: [join(dir, 'pdf-tools')] });
    const tool = registry.get('agent-skill/pdf-tools')!;
    expect(tool).toMatchObject({ source: 'agent-skill', description: 'Fill and merge PDF forms.' });
    expect(tool.capabilities).toMatchObject({ readOnly: true, writes: false });
    const overview = await registry.handlerOf('agent-skill/pdf-tools')({}, {});
    expect(overview.data).toEqual({
      instructions: '# PDF tools\n\nRun scripts/fill.py with the form.',
      files: ['reference.md', 'scripts/fill.py'],
    });
    const file = await registry.handlerOf('agent-skill/pdf-tools')({ file: 'scripts/fill.py' }, {});
    expect((file.content[0] as { text: string }).text).toBe('print("filling")\n');
    const outside = await registry.handlerOf('agent-skill/pdf-tools')({ file: '../broken/SKILL.md' }, {});
    expect(outside.errorCode).toBe('VALIDATION');
  });

  it('refuses a SKILL.md without a valid name and description', async () => {
    await expect(loadAgentSkill(join(dir, 'broken'))).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    await expect(loadAgentSkill(join(dir, 'missing'))).rejects.toThrow('does not exist');
  });

  it('reports servers with no tools as unavailable, and unknown skills as NOT_FOUND', async () => {
    const skills = new SkillRegistry(new ToolRegistry());
    await skills.define({ name: 'needs', mcpServers: [{ server: 'down', required: true }], tools: ['builtin/nope'] });
    const resolved = skills.resolve(['needs']);
    expect(resolved.unavailable).toEqual([{ skill: 'needs', server: 'down', required: true }]);
    expect(resolved.missingTools).toEqual([{ skill: 'needs', tool: 'builtin/nope' }]);
    expect(() => skills.resolve(['nope'])).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it("follows the server's tool list within one refresh, reading every page", async () => {
    const registry = new ToolRegistry();
    const adapter = await fixtureAdapter(registry, 4);
    const skills = new SkillRegistry(registry);
    await skills.define({ name: 'all', mcpServers: ['fx'] });
    new McpRefreshHook(skills).attach(adapter);
    const seen: ResolvedToolSet[] = [];
    skills.resolved$.subscribe((all) => seen.push(all.get('all')!));
    const names = (): string[] => skills.toolsOf('all')!.tools.map((t) => t.toolName);
    const before = names().length;
    expect(before).toBeGreaterThan(15);
    const refreshesBefore = seen.length;
    await adapter.invoke('tools_add', { name: 'zz_last_page_tool' });
    await waitUntil(() => names().includes('zz_last_page_tool'), 'the added tool in the skill');
    expect(seen.length).toBe(refreshesBefore + 1);
    expect(names()).toHaveLength(before + 1);
    await adapter.invoke('tools_remove', { name: 'zz_last_page_tool' });
    await waitUntil(() => !names().includes('zz_last_page_tool'), 'the removed tool to leave the skill');
    expect(names()).toHaveLength(before);
  });
});
