/**
 * Capability inference for MCP tools: is a tool read-only or does it write, is it destructive,
 * idempotent, open-world — and which source said so. Pure; no I/O.
 *
 * Sources, strongest first (ADR-029, "Capability Inference and Override"):
 * 1. explicit overrides (tool YAML, then the skill inclusion point — the later wins, key by key);
 * 2. MCP tool annotations — in full from a trusted server, and from an untrusted one only where
 *    they make the tool more careful (the MCP spec: annotations from untrusted servers must not be
 *    relied on);
 * 3. word tokens of the tool name (`READ_WORDS`, `WRITE_WORDS`; a write word wins);
 * 4. an untrusted server's `readOnlyHint: true`, believed as far as a read word in the name is
 *    (the name comes from the same server): it makes a tool read-only unless a write word, a
 *    careful hint or an override says otherwise — and a sandboxed read-only call that changes a
 *    file is still rolled back (CAPABILITY_VIOLATION);
 * 5. the conservative default, `writes: true`.
 */
import { ConfigError, type ConfigProblem } from '../errors/index.js';
import { isReadWord, isWriteWord } from './capability-words.js';
import { tokenize } from './tokenize.js';

/** What a tool may do. Always `readOnly === !writes`, and `destructive` implies `writes`. */
export interface ToolCapability {
  readonly readOnly: boolean;
  readonly writes: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  readonly openWorld: boolean;
}

export type CapabilitySource = 'override' | 'annotation' | 'name' | 'default';

/** For each field, which source decided it and a sentence a person can read in a log. */
export type CapabilityProvenance = {
  readonly [K in keyof ToolCapability]: { readonly source: CapabilitySource; readonly detail: string };
};

export interface InferredCapabilities {
  readonly capability: ToolCapability;
  readonly provenance: CapabilityProvenance;
}

/** One `overrides` block from tool or skill configuration. */
export interface CapabilityOverrides {
  readonly readOnly?: boolean;
  readonly writes?: boolean;
  readonly destructive?: boolean;
  readonly idempotent?: boolean;
  readonly openWorld?: boolean;
}

/** The behaviour hints of an MCP tool, as `tools/list` reports them. */
export interface ToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
  readonly title?: string;
}

export interface InferenceInput {
  readonly toolName: string;
  readonly annotations?: ToolAnnotations;
  /** The server was configured with `trusted: true`; its annotations then count in full. Default false. */
  readonly trusted?: boolean;
  /**
   * Override blocks in the order they apply, the later winning key by key: tool YAML first, then
   * the skill inclusion point. `at` names where the block came from, for provenance and errors.
   */
  readonly overrides?: readonly { readonly at: string; readonly values: CapabilityOverrides }[];
}

interface Fact {
  readonly value: boolean;
  readonly detail: string;
}

/** What one source says; a field it is silent on is left to weaker sources. */
interface Layer {
  readonly source: CapabilitySource;
  readonly writes?: Fact | undefined;
  readonly destructive?: Fact | undefined;
  readonly idempotent?: Fact | undefined;
  readonly openWorld?: Fact | undefined;
}

const YAML_KEY: { readonly [K in keyof CapabilityOverrides]-?: string } = {
  readOnly: 'read_only',
  writes: 'writes',
  destructive: 'destructive',
  idempotent: 'idempotent',
  openWorld: 'open_world',
};

/**
 * Everything wrong with one override block, for a caller that gathers problems from a whole
 * configuration. Contradictions: `read_only` and `writes` saying the same thing (a tool is either
 * read-only or it writes), and `destructive: true` on a block that also says read-only.
 */
export function overrideProblems(values: CapabilityOverrides, at: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const key of Object.keys(YAML_KEY) as (keyof CapabilityOverrides)[]) {
    const value: unknown = values[key];
    if (value !== undefined && typeof value !== 'boolean') {
      problems.push({ path: `${at}.${YAML_KEY[key]}`, problem: `must be true or false, not ${JSON.stringify(value)}` });
    }
  }
  const { readOnly, writes, destructive } = values;
  if (readOnly === true && writes === true) {
    problems.push({
      path: `${at}.read_only`,
      problem: 'read_only: true and writes: true contradict each other; a read-only tool cannot write',
      hint: 'remove one',
    });
  }
  if (readOnly === false && writes === false) {
    problems.push({
      path: `${at}.read_only`,
      problem: 'read_only: false and writes: false contradict each other; a tool that is not read-only writes',
      hint: 'remove one',
    });
  }
  if (destructive === true && (readOnly === true || writes === false)) {
    const said = readOnly === true ? 'read_only: true' : 'writes: false';
    problems.push({
      path: `${at}.destructive`,
      problem: `destructive: true and ${said} contradict each other; a read-only tool cannot destroy anything`,
      hint: 'remove one',
    });
  }
  return problems;
}

/**
 * Throws a `ConfigError` when an override block contradicts itself, e.g. `read_only: true` with
 * `writes: true`.
 *
 * @example
 * validateOverrides({ readOnly: true }, 'skills.triage.tools.search'); // fine
 */
export function validateOverrides(values: CapabilityOverrides, at: string): void {
  const problems = overrideProblems(values, at);
  if (problems.length > 0) throw new ConfigError(problems, { subject: 'capability overrides' });
}

/**
 * Infers what a tool may do from its overrides, annotations and name, strongest source first, and
 * records which source decided each field. Throws a `ConfigError` listing every contradictory
 * override block.
 *
 * @example
 * const { capability, provenance } = inferCapabilities({ toolName: 'list_issues' });
 * capability.readOnly;          // true
 * provenance.readOnly.detail;   // 'word "list" in name'
 */
export function inferCapabilities(input: InferenceInput): InferredCapabilities {
  const blocks = input.overrides ?? [];
  const problems = blocks.flatMap((block) => overrideProblems(block.values, block.at));
  if (problems.length > 0) throw new ConfigError(problems, { subject: 'capability overrides' });

  const layers: Layer[] = [
    ...blocks.map((block) => overrideLayer(block.values, block.at)).reverse(),
    annotationLayer(input.annotations ?? {}, input.trusted === true),
    nameLayer(input.toolName, input.annotations?.readOnlyHint === true && input.trusted !== true),
    untrustedReadOnlyLayer(input.annotations ?? {}, input.trusted === true),
  ];

  // When nothing says, ADR-029 makes the tool write ("the conservative default is writes: true");
  // the adapter reference page says `read_only: false, writes: false`. We take the safer reading.
  const writes = decide(layers, 'writes') ?? { source: 'default', value: true, detail: DEFAULT_WRITES_DETAIL };
  const destructive: Decision = !writes.value
    ? { source: writes.source, value: false, detail: `a read-only tool is not destructive (${writes.detail})` }
    : (decide(layers, 'destructive') ?? {
        source: 'default',
        value: true,
        detail: 'follows writes (MCP default destructiveHint: true)',
      });
  const idempotent = decide(layers, 'idempotent') ?? {
    source: 'default',
    value: !writes.value,
    detail: 'follows read-only (MCP default idempotentHint: false; a read-only tool is idempotent)',
  };
  const openWorld = decide(layers, 'openWorld') ?? {
    source: 'default',
    value: true,
    detail: 'MCP default openWorldHint: true',
  };

  return {
    capability: {
      readOnly: !writes.value,
      writes: writes.value,
      destructive: destructive.value,
      idempotent: idempotent.value,
      openWorld: openWorld.value,
    },
    provenance: {
      readOnly: origin(writes),
      writes: origin(writes),
      destructive: origin(destructive),
      idempotent: origin(idempotent),
      openWorld: origin(openWorld),
    },
  };
}

/** Why a tool nothing else classified is taken to write (ADR-029's conservative default), and what would change it. */
const DEFAULT_WRITES_DETAIL =
  'nothing says it only reads: no read word in its name, no read-only hint (override read_only: true if it does)';

type Decision = Fact & { readonly source: CapabilitySource };

function decide(layers: readonly Layer[], field: 'writes' | 'destructive' | 'idempotent' | 'openWorld'): Decision | undefined {
  for (const layer of layers) {
    const fact = layer[field];
    if (fact !== undefined) return { ...fact, source: layer.source };
  }
  return undefined;
}

function origin(decision: Decision): { source: CapabilitySource; detail: string } {
  return { source: decision.source, detail: decision.detail };
}

function fact(value: boolean, detail: string): Fact {
  return { value, detail };
}

// Implications inside one block: read_only is the negation of writes, and destructive: true means
// the tool writes (safety first: the override that says a tool destroys things wins over any weaker
// source that called it read-only). `read_only: false` alone means "may write", so writes: true.
function overrideLayer(values: CapabilityOverrides, at: string): Layer {
  const here = `override at ${at}`;
  let writes: Fact | undefined;
  if (values.writes !== undefined) writes = fact(values.writes, here);
  else if (values.readOnly !== undefined) writes = fact(!values.readOnly, `${here} (read_only: ${values.readOnly})`);
  else if (values.destructive === true) writes = fact(true, `${here} (destructive: true implies writes)`);
  return {
    source: 'override',
    writes,
    destructive: values.destructive === undefined ? undefined : fact(values.destructive, here),
    idempotent: values.idempotent === undefined ? undefined : fact(values.idempotent, here),
    openWorld: values.openWorld === undefined ? undefined : fact(values.openWorld, here),
  };
}

// A trusted server's hints count in full, except that destructiveHint: true makes the tool write
// even beside readOnlyHint: true (safety first), and destructiveHint: false / idempotentHint: true
// are ignored on a read-only tool (the MCP spec: they are meaningful only when readOnlyHint is
// false). An untrusted server's hints count only where they make the tool more careful.
function annotationLayer(hints: ToolAnnotations, trusted: boolean): Layer {
  const who = trusted ? 'trusted' : 'untrusted';
  const from = (hint: string, value: boolean): string =>
    trusted ? `${hint}: ${value} from trusted server` : `${hint}: ${value} from untrusted server (counts: it is more careful)`;
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = hints;

  let writes: Fact | undefined;
  if (readOnlyHint === false) writes = fact(true, from('readOnlyHint', false));
  else if (destructiveHint === true) writes = fact(true, `destructiveHint: true from ${who} server (a destructive tool writes)`);
  else if (readOnlyHint === true && trusted) writes = fact(false, from('readOnlyHint', true));
  const mayWrite = writes?.value !== false;

  const destructive =
    destructiveHint === true || (destructiveHint === false && trusted && mayWrite)
      ? fact(destructiveHint, from('destructiveHint', destructiveHint))
      : undefined;
  const idempotent =
    idempotentHint === false || (idempotentHint === true && trusted && mayWrite)
      ? fact(idempotentHint, from('idempotentHint', idempotentHint))
      : undefined;
  const openWorld =
    openWorldHint === true || (openWorldHint === false && trusted) ? fact(openWorldHint, from('openWorldHint', openWorldHint)) : undefined;
  return { source: 'annotation', writes, destructive, idempotent, openWorld };
}

// An untrusted server's readOnlyHint: true, weighed like a read word of the name (which the same
// server chose): below the name, so a write word still makes the tool write. readOnlyHint: true
// beside destructiveHint: true never gets here (the annotation layer already made it write).
function untrustedReadOnlyLayer(hints: ToolAnnotations, trusted: boolean): Layer {
  if (trusted || hints.readOnlyHint !== true) return { source: 'annotation' };
  return {
    source: 'annotation',
    writes: fact(
      false,
      'readOnlyHint: true from untrusted server (believed as a read word in its name would be: a write word or an override outweighs it)',
    ),
  };
}

function nameLayer(toolName: string, untrustedReadOnlyHint: boolean): Layer {
  const tokens = tokenize(toolName);
  const writeWord = tokens.find(isWriteWord);
  const readWord = tokens.find(isReadWord);
  if (writeWord !== undefined) {
    const beside =
      (readWord === undefined ? '' : ` (write words win over "${readWord}")`) +
      (untrustedReadOnlyHint
        ? "; it outweighs the untrusted server's readOnlyHint: true (set trusted: true, or override read_only: true)"
        : '');
    return { source: 'name', writes: fact(true, `word "${writeWord}" in name${beside}`) };
  }
  if (readWord !== undefined) return { source: 'name', writes: fact(false, `word "${readWord}" in name`) };
  return { source: 'name' };
}
