import { describe, expect, it } from 'vitest';
import { isConfigError, type ConfigError } from '../../../src/errors/index.js';
import { defineServer } from '../../../src/domain/define-server.js';
import { defineTool, type DomainTool } from '../../../src/domain/define-tool.js';
import {
  categoryAnnotations,
  categoryCapabilities,
  TOOL_CATEGORIES,
  toolCategory,
  type ToolCategory,
} from '../../../src/domain/tool-category.js';
import type { ToolCapability } from '../../../src/registry/capabilities.js';

const categoryOfCapability = (capabilities: ToolCapability, category?: ToolCategory): ToolCategory =>
  toolCategory({ capabilities, sourceMetadata: { category } }).category;
import { inferCapabilities } from '../../../src/registry/capabilities.js';
import { thrownBy } from '../../support/rejection.js';

const configError = (run: () => unknown): ConfigError => thrownBy(run, isConfigError, 'expected a ConfigError');

const good: DomainTool<{ date_from: string }, { shifts: string[] }> = {
  name: 'roster_list_shifts',
  domain: 'roster',
  category: 'read',
  description: 'Lists shifts.',
  input: { type: 'object', properties: { date_from: { type: 'string', format: 'date' } }, required: ['date_from'] },
  output: { type: 'object', properties: { shifts: { type: 'array', items: { type: 'string' } } }, required: ['shifts'] },
  call: () => ({ shifts: [] }),
};

function paths(error: ConfigError): string[] {
  return error.problems.map((problem) => problem.path);
}

describe('defineTool', () => {
  it('returns a good definition unchanged', () => {
    expect(defineTool(good)).toBe(good);
  });

  it('accepts a tool without an output schema and a draft-07 input schema', () => {
    const tool = {
      ...good,
      output: undefined,
      input: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} },
    };
    expect(defineTool(tool)).toBe(tool);
  });

  it.each([
    ['a name with a space', { name: 'list shifts' }, 'list shifts.name'],
    ['a name with a slash', { name: 'roster/list' }, 'roster/list.name'],
    ['a name longer than 128 characters', { name: 'x'.repeat(129) }, `${'x'.repeat(129)}.name`],
    ['an empty domain', { domain: '' }, 'roster_list_shifts.domain'],
    ['an unknown category', { category: 'write' }, 'roster_list_shifts.category'],
    ['an empty description', { description: '  ' }, 'roster_list_shifts.description'],
    ['no call function', { call: 'nope' }, 'roster_list_shifts.call'],
    ['an input that is not an object', { input: 'string' }, 'roster_list_shifts.input'],
    ['an input of another type', { input: { type: 'array' } }, 'roster_list_shifts.input.type'],
    ['an input without a type', { input: { properties: {} } }, 'roster_list_shifts.input.type'],
    ['an input that does not compile', { input: { type: 'object', properties: { a: { type: 'nope' } } } }, 'roster_list_shifts.input'],
    ['an output of another type', { output: { type: 'string' } }, 'roster_list_shifts.output.type'],
    ['an output that does not compile', { output: { type: 'object', required: 'shifts' } }, 'roster_list_shifts.output'],
    [
      'an input declaring org_id',
      { input: { type: 'object', properties: { org_id: { type: 'string' } } } },
      'roster_list_shifts.input.properties.org_id',
    ],
    [
      'an input declaring Tenant_ID',
      { input: { type: 'object', properties: { Tenant_ID: { type: 'string' } } } },
      'roster_list_shifts.input.properties.Tenant_ID',
    ],
  ])('refuses %s, naming the tool and the field', (_what, change, path) => {
    const error = configError(() => defineTool({ ...good, ...change } as unknown as DomainTool));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(paths(error)).toEqual([path]);
    const name = (change as { name?: string }).name ?? good.name;
    expect(error.message).toContain(`domain tool "${name}"`);
  });

  it('lists every problem of a definition at once', () => {
    const error = configError(() =>
      defineTool({
        name: 'bad name',
        domain: 'roster',
        category: 'delete',
        description: '',
        input: {},
        call: undefined,
      } as unknown as DomainTool),
    );
    expect(paths(error)).toEqual(['bad name.name', 'bad name.category', 'bad name.description', 'bad name.call', 'bad name.input.type']);
  });

  it('says what to write for a tool without parameters', () => {
    const error = configError(() => defineTool({ ...good, input: undefined } as unknown as DomainTool));
    expect(error.problems[0]?.hint).toContain("{ type: 'object', properties: {} }");
  });
});

describe('defineServer', () => {
  const other = { ...good, name: 'roster_delete_shift', category: 'execute' } as const;

  it('returns a frozen server with the tools in order', () => {
    const server = defineServer({ name: 'roster', version: '1.2.3', tools: [good, other] });
    expect(server.name).toBe('roster');
    expect(server.version).toBe('1.2.3');
    expect(server.tools.map((tool) => tool.name)).toEqual(['roster_list_shifts', 'roster_delete_shift']);
    expect(Object.isFrozen(server)).toBe(true);
    expect(Object.isFrozen(server.tools)).toBe(true);
  });

  it('refuses two tools of one name, naming both places', () => {
    const error = configError(() => defineServer({ name: 'roster', tools: [good, other, { ...good, description: 'again' }] }));
    expect(paths(error)).toEqual(['tools[2].name']);
    expect(error.message).toContain('"roster_list_shifts" is already the name of tools[0]');
    expect(error.message).toContain('domain server "roster"');
  });

  it('refuses a name that cannot be a namespace and checks every tool', () => {
    const error = configError(() =>
      defineServer({ name: 'roster/v2', version: 2 as unknown as string, tools: [{ ...good, category: 'nope' } as unknown as DomainTool] }),
    );
    expect(paths(error)).toEqual(['name', 'version', 'tools.roster_list_shifts.category']);
  });

  it('refuses tools that are not an array', () => {
    const error = configError(() => defineServer({ name: 'roster', tools: undefined as unknown as DomainTool[] }));
    expect(paths(error)).toEqual(['tools']);
  });
});

describe('tool categories', () => {
  it('map to capability overrides that inferCapabilities accepts', () => {
    const inferred = Object.fromEntries(
      TOOL_CATEGORIES.map((category) => [
        category,
        inferCapabilities({ toolName: 'x', overrides: [{ at: 'test', values: categoryCapabilities(category) }] }).capability,
      ]),
    );
    expect(inferred.read).toMatchObject({ readOnly: true, writes: false, destructive: false, idempotent: true });
    expect(inferred.propose).toMatchObject({ readOnly: false, writes: true, destructive: false });
    expect(inferred.execute).toMatchObject({ readOnly: false, writes: true, destructive: true });
    expect(inferred.restricted).toMatchObject({ readOnly: false, writes: true, destructive: true });
  });

  it('decide over the name: a read category on a tool named delete_* stays read-only', () => {
    const { capability, provenance } = inferCapabilities({
      toolName: 'delete_cache_view',
      overrides: [{ at: 'category read', values: categoryCapabilities('read') }],
    });
    expect(capability.readOnly).toBe(true);
    expect(provenance.readOnly.source).toBe('override');
  });

  it('give MCP annotations', () => {
    expect(categoryAnnotations('read')).toEqual({ readOnlyHint: true });
    expect(categoryAnnotations('propose')).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(categoryAnnotations('execute')).toEqual({ readOnlyHint: false });
    expect(categoryAnnotations('restricted')).toEqual({ readOnlyHint: false, destructiveHint: true });
  });

  it('come from the capabilities of an MCP tool: read or execute, never restricted unless overridden', () => {
    const read = inferCapabilities({ toolName: 'list_files' }).capability;
    const write = inferCapabilities({ toolName: 'delete_file' }).capability;
    expect(categoryOfCapability(read)).toBe('read');
    expect(categoryOfCapability(write)).toBe('execute');
    expect(categoryOfCapability(inferCapabilities({ toolName: 'frobnicate' }).capability)).toBe('execute');
    expect(categoryOfCapability(write, 'restricted')).toBe('restricted');
    expect(categoryOfCapability(read, 'propose')).toBe('propose');
  });
});
