import { describe, expect, it } from 'vitest';
import { isConfigError } from '../../../src/errors/index.js';
import { READ_WORDS, WRITE_WORDS } from '../../../src/registry/capability-words.js';
import { inferCapabilities, overrideProblems, validateOverrides, type InferenceInput } from '../../../src/registry/capabilities.js';
import { tokenize } from '../../../src/registry/tokenize.js';
import { toolCategory } from '../../../src/domain/tool-category.js';
import { thrownBy } from '../../support/rejection.js';

const thrown = (run: () => unknown): unknown => thrownBy(run, (_error): _error is unknown => true, 'expected a throw');

describe('tokenize', () => {
  it.each([
    ['getHTTPStatus', ['get', 'http', 'status']],
    ['HTTPGet', ['http', 'get']],
    ['getUserById', ['get', 'user', 'by', 'id']],
    ['list-files', ['list', 'files']],
    ['fs.read_file', ['fs', 'read', 'file']],
    ['github/create_issue', ['github', 'create', 'issue']],
    ['s3put2bucket', ['s', 'put', 'bucket']],
    ['LIST_FILES', ['list', 'files']],
    ['  spaced  out ', ['spaced', 'out']],
    ['', []],
    ['___', []],
  ])('splits %j into %j', (name, tokens) => {
    expect(tokenize(name)).toEqual(tokens);
  });
});

describe('name heuristics', () => {
  it.each([
    ['target_list', true, 'word "list" in name'],
    ['settings_get', true, 'word "get" in name'],
    ['reset', false, 'word "reset" in name'],
    ['getUserById', true, 'word "get" in name'],
    ['list-files', true, 'word "list" in name'],
    ['fs.read_file', true, 'word "read" in name'],
    ['HTTPGet', true, 'word "get" in name'],
    ['getHTTPStatus', true, 'word "get" in name'],
    ['read_and_write', false, 'word "write" in name (write words win over "read")'],
    ['create_issue', false, 'word "create" in name'],
    ['deleteRepo', false, 'word "delete" in name'],
    ['searchAndReplace', false, 'word "replace" in name (write words win over "search")'],
    ['run_query', false, 'word "run" in name (write words win over "query")'],
  ])('%s is read-only: %s', (toolName, readOnly, detail) => {
    const { capability, provenance } = inferCapabilities({ toolName });
    expect(capability.readOnly).toBe(readOnly);
    expect(capability.writes).toBe(!readOnly);
    expect(provenance.readOnly).toEqual({ source: 'name', detail });
    expect(provenance.writes).toEqual({ source: 'name', detail });
  });

  it.each(['frobnicate', 'x', '', 'getaway', 'listing', 'settings', 'preset', 'target', 'reader', '42'])(
    '%j has no whole read or write word, so it writes by the conservative default',
    (toolName) => {
      const { capability, provenance } = inferCapabilities({ toolName });
      expect(capability.writes).toBe(true);
      expect(capability.readOnly).toBe(false);
      expect(provenance.writes).toEqual({
        source: 'default',
        detail: 'nothing says it only reads: no read word in its name, no read-only hint (override read_only: true if it does)',
      });
    },
  );

  it("believes an untrusted server's readOnlyHint: true as far as a read word in the name, and says so", () => {
    const { capability, provenance } = inferCapabilities({ toolName: 'directory_tree', annotations: { readOnlyHint: true } });
    expect(capability).toMatchObject({ readOnly: true, writes: false, destructive: false });
    expect(provenance.writes).toEqual({
      source: 'annotation',
      detail:
        'readOnlyHint: true from untrusted server (believed as a read word in its name would be: a write word or an override outweighs it)',
    });
    expect(inferCapabilities({ toolName: 'directory_tree', annotations: { readOnlyHint: true }, trusted: true }).capability.readOnly).toBe(
      true,
    );
  });

  it("lets a write word of the name outweigh an untrusted server's readOnlyHint: true, and says how to believe the server", () => {
    const { capability, provenance } = inferCapabilities({ toolName: 'write_notes', annotations: { readOnlyHint: true } });
    expect(capability).toMatchObject({ readOnly: false, writes: true, destructive: true });
    expect(provenance.writes).toEqual({
      source: 'name',
      detail:
        'word "write" in name; it outweighs the untrusted server\'s readOnlyHint: true (set trusted: true, or override read_only: true)',
    });
  });

  it('matches whole words only: reset writes because of "reset", not because it contains "set"', () => {
    expect(tokenize('reset')).toEqual(['reset']);
    expect(inferCapabilities({ toolName: 'reset' }).provenance.writes.detail).toBe('word "reset" in name');
    expect(inferCapabilities({ toolName: 'offset_list' }).capability.readOnly).toBe(true);
  });

  it('knows every listed word', () => {
    for (const word of READ_WORDS) expect(inferCapabilities({ toolName: `${word}_thing` }).capability.readOnly).toBe(true);
    for (const word of WRITE_WORDS) expect(inferCapabilities({ toolName: `${word}_thing` }).capability.writes).toBe(true);
  });
});

describe('defaults for the other fields', () => {
  it('gives a read-only tool destructive: false, idempotent: true, openWorld: true', () => {
    const { capability, provenance } = inferCapabilities({ toolName: 'list_files' });
    expect(capability).toEqual({ readOnly: true, writes: false, destructive: false, idempotent: true, openWorld: true });
    expect(provenance.destructive).toEqual({
      source: 'name',
      detail: 'a read-only tool is not destructive (word "list" in name)',
    });
    expect(provenance.idempotent.source).toBe('default');
    expect(provenance.openWorld).toEqual({ source: 'default', detail: 'MCP default openWorldHint: true' });
  });

  it('gives a writing tool destructive: true, idempotent: false, openWorld: true', () => {
    const { capability, provenance } = inferCapabilities({ toolName: 'frobnicate' });
    expect(capability).toEqual({ readOnly: false, writes: true, destructive: true, idempotent: false, openWorld: true });
    expect(provenance.destructive).toEqual({ source: 'default', detail: 'follows writes (MCP default destructiveHint: true)' });
    expect(provenance.idempotent.source).toBe('default');
  });
});

describe('overrides', () => {
  it('win over annotations and the name', () => {
    const { capability, provenance } = inferCapabilities({
      toolName: 'delete_everything',
      annotations: { readOnlyHint: false, destructiveHint: true },
      trusted: true,
      overrides: [{ at: 'tools.cleanup.overrides', values: { readOnly: true } }],
    });
    expect(capability).toMatchObject({ readOnly: true, writes: false, destructive: false });
    expect(provenance.readOnly).toEqual({ source: 'override', detail: 'override at tools.cleanup.overrides (read_only: true)' });
    expect(provenance.destructive.source).toBe('override');
  });

  it('apply tool YAML first, then the skill inclusion point, the later winning key by key', () => {
    const input: InferenceInput = {
      toolName: 'list_issues',
      overrides: [
        { at: 'tools.github.overrides', values: { writes: true, idempotent: true, openWorld: false } },
        { at: 'skills.triage.tools.list_issues', values: { readOnly: true } },
      ],
    };
    const { capability, provenance } = inferCapabilities(input);
    expect(capability).toEqual({ readOnly: true, writes: false, destructive: false, idempotent: true, openWorld: false });
    expect(provenance.writes).toEqual({
      source: 'override',
      detail: 'override at skills.triage.tools.list_issues (read_only: true)',
    });
    expect(provenance.idempotent).toEqual({ source: 'override', detail: 'override at tools.github.overrides' });
    expect(provenance.openWorld).toEqual({ source: 'override', detail: 'override at tools.github.overrides' });
  });

  it('read_only: false alone means the tool writes; writes: false alone means it is read-only', () => {
    expect(inferCapabilities({ toolName: 'list', overrides: [{ at: 'a', values: { readOnly: false } }] }).capability.writes).toBe(true);
    expect(inferCapabilities({ toolName: 'frobnicate', overrides: [{ at: 'a', values: { writes: false } }] }).capability.readOnly).toBe(
      true,
    );
  });

  it('destructive: true makes a read-only tool write', () => {
    const { capability, provenance } = inferCapabilities({
      toolName: 'list_files',
      overrides: [{ at: 'skills.ops.tools.list_files', values: { destructive: true } }],
    });
    expect(capability).toMatchObject({ readOnly: false, writes: true, destructive: true });
    expect(provenance.writes).toEqual({
      source: 'override',
      detail: 'override at skills.ops.tools.list_files (destructive: true implies writes)',
    });
  });

  it('a later read_only: true beats an earlier destructive: true', () => {
    const { capability } = inferCapabilities({
      toolName: 'frobnicate',
      overrides: [
        { at: 'tools.x.overrides', values: { destructive: true } },
        { at: 'skills.y.tools.x', values: { readOnly: true } },
      ],
    });
    expect(capability).toMatchObject({ readOnly: true, writes: false, destructive: false });
  });

  it('reject read_only: true with writes: true in one block as a ConfigError', () => {
    const error = thrown(() => validateOverrides({ readOnly: true, writes: true }, 'skills.triage.tools.search'));
    expect(isConfigError(error)).toBe(true);
    expect(isConfigError(error) && error.problems).toEqual([
      {
        path: 'skills.triage.tools.search.read_only',
        problem: 'read_only: true and writes: true contradict each other; a read-only tool cannot write',
        hint: 'remove one',
      },
    ]);
    expect((error as Error).message).toContain(
      'skills.triage.tools.search.read_only: read_only: true and writes: true contradict each other; a read-only tool cannot write — remove one',
    );
  });

  it('reject the other contradictions and values that are not booleans', () => {
    expect(overrideProblems({ readOnly: false, writes: false }, 'a').map((p) => p.path)).toEqual(['a.read_only']);
    expect(overrideProblems({ readOnly: true, destructive: true }, 'a').map((p) => p.path)).toEqual(['a.destructive']);
    expect(overrideProblems({ writes: false, destructive: true }, 'a').map((p) => p.path)).toEqual(['a.destructive']);
    const loose = { openWorld: 'yes' } as unknown as { openWorld: boolean };
    expect(overrideProblems(loose, 'a')).toEqual([{ path: 'a.open_world', problem: 'must be true or false, not "yes"' }]);
    expect(overrideProblems({ readOnly: true, idempotent: false, destructive: false, openWorld: false }, 'a')).toEqual([]);
    expect(() => validateOverrides({ writes: true, destructive: true }, 'a')).not.toThrow();
  });

  it('make inferCapabilities list every contradictory block in one ConfigError', () => {
    const error = thrown(() =>
      inferCapabilities({
        toolName: 'x',
        overrides: [
          { at: 'tools.x.overrides', values: { readOnly: true, writes: true } },
          { at: 'skills.y.tools.x', values: { writes: false, destructive: true } },
        ],
      }),
    );
    expect(isConfigError(error) && error.problems.map((p) => p.path)).toEqual([
      'tools.x.overrides.read_only',
      'skills.y.tools.x.destructive',
    ]);
  });
});

describe('annotations', () => {
  const fromTrusted = (toolName: string, annotations: InferenceInput['annotations']) =>
    inferCapabilities({ toolName, trusted: true, annotations });

  it('count in full from a trusted server', () => {
    const { capability, provenance } = fromTrusted('delete_file', { readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(capability).toEqual({ readOnly: true, writes: false, destructive: false, idempotent: true, openWorld: false });
    expect(provenance.readOnly).toEqual({ source: 'annotation', detail: 'readOnlyHint: true from trusted server' });
    expect(provenance.openWorld).toEqual({ source: 'annotation', detail: 'openWorldHint: false from trusted server' });
  });

  it('from a trusted server can say a writing tool is neither destructive nor repeat-unsafe', () => {
    const { capability, provenance } = fromTrusted('create_note', { destructiveHint: false, idempotentHint: true });
    expect(capability).toMatchObject({ writes: true, destructive: false, idempotent: true });
    expect(provenance.writes.source).toBe('name');
    expect(provenance.destructive).toEqual({ source: 'annotation', detail: 'destructiveHint: false from trusted server' });
  });

  it('make a trusted read-only tool write when it is also called destructive', () => {
    const { capability, provenance } = fromTrusted('list_things', { readOnlyHint: true, destructiveHint: true });
    expect(capability).toMatchObject({ readOnly: false, writes: true, destructive: true });
    expect(provenance.writes.detail).toBe('destructiveHint: true from trusted server (a destructive tool writes)');
  });

  it('from an untrusted server are ignored when they would loosen (readOnlyHint: true aside, which counts as a read word)', () => {
    const { capability, provenance } = inferCapabilities({
      toolName: 'frobnicate',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    expect(capability).toEqual({ readOnly: false, writes: true, destructive: true, idempotent: false, openWorld: true });
    expect(provenance.writes.source).toBe('annotation');
    expect(provenance.destructive.source).toBe('default');
    expect(provenance.idempotent.source).toBe('default');
    expect(provenance.openWorld.source).toBe('default');
  });

  it('from an untrusted server count when they make the tool more careful', () => {
    const readOnlyFalse = inferCapabilities({ toolName: 'list_files', annotations: { readOnlyHint: false } });
    expect(readOnlyFalse.capability.writes).toBe(true);
    expect(readOnlyFalse.provenance.writes).toEqual({
      source: 'annotation',
      detail: 'readOnlyHint: false from untrusted server (counts: it is more careful)',
    });

    const destructive = inferCapabilities({ toolName: 'get_file', annotations: { readOnlyHint: true, destructiveHint: true } });
    expect(destructive.capability).toMatchObject({ writes: true, destructive: true });
    expect(destructive.provenance.destructive.source).toBe('annotation');

    const notIdempotent = inferCapabilities({ toolName: 'get_random', annotations: { idempotentHint: false } });
    expect(notIdempotent.capability).toMatchObject({ readOnly: true, idempotent: false });
    expect(notIdempotent.provenance.idempotent.source).toBe('annotation');
  });

  it('give way to overrides', () => {
    const { capability, provenance } = inferCapabilities({
      toolName: 'search',
      trusted: true,
      annotations: { readOnlyHint: true, openWorldHint: true },
      overrides: [{ at: 'tools.web.overrides', values: { openWorld: false } }],
    });
    expect(capability.openWorld).toBe(false);
    expect(provenance.openWorld).toEqual({ source: 'override', detail: 'override at tools.web.overrides' });
    expect(provenance.readOnly.source).toBe('annotation');
  });
});

describe('toolCategory of inferred capabilities', () => {
  it('is read for a read-only tool and execute for anything that writes', () => {
    const categoryOf = (toolName: string) => toolCategory({ capabilities: inferCapabilities({ toolName }).capability }).category;
    expect(categoryOf('list_files')).toBe('read');
    expect(categoryOf('write_file')).toBe('execute');
    expect(categoryOf('frobnicate')).toBe('execute');
  });
});
