/**
 * Lets an MCP server work on the sandbox without knowing it: paths in tool arguments are rewritten
 * into the sandbox (and refused if they would leave it), and sandbox paths in results are rewritten
 * back to the logical paths the agent used.
 */

import { lstatSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import { SandboxPathError, SandboxPathReason } from '../errors/sandbox-path-error.js';
import { expandSchema, fieldKind, itemSchemas, propertySchemas, type FieldKind, type JsonSchemaObject } from './path-fields.js';
import { PathMasker, PRIVATE_MASK, SANDBOX_MASK } from './path-masker.js';
import { isWindowsPath, pathLike } from './path-shape.js';
import {
  UnresolvablePathError,
  checkText,
  climb,
  fileUriPath,
  isFileUri,
  isNonFileUrl,
  isWithin,
  refuse,
  resolveOnDisk,
  rootAliases,
  segmentsOf,
  stripRoot,
} from './path-safety.js';

export type { JsonSchemaObject } from './path-fields.js';

export interface SandboxPathRewriterConfig {
  /** Absolute directory the server really works in (the sandbox's worktree). */
  readonly sandboxRoot: string;
  /** Absolute directory the agent thinks in (the project). Must not contain, or lie inside, `sandboxRoot`. */
  readonly hostRoot: string;
  /**
   * Absolute directories no result may name: the sandbox's temp dir, its checkpoints, its store.
   * Any spelling of them in a result becomes `<sandbox-private>` (arguments naming them are refused,
   * as every path outside the project is).
   */
  readonly privateDirs?: readonly string[];
}

/**
 * Characters that end a path in running text. A sandbox root is only rewritten where it starts
 * after one of these (or at the start of the text) and ends before one of these, a `/`, a `.` that
 * ends a sentence, or the end — so `<root>_other`, `<root>.bak` and `/a<root>` are left alone.
 */
const BOUNDARY = String.raw`\s"'\x60()\[\]{}<>,;:|=&!?*#`;
const BOUNDARY_CHAR = new RegExp(`[${BOUNDARY}]`);
const BOUNDARY_CHARS_GLOBAL = new RegExp(`[${BOUNDARY}]`, 'g');
/** Where a sandbox root can begin: its own `/`, or the `f` of `file://`. */
const CANDIDATE_START = /[/fF]/;

type Seen = Map<object, unknown>;

const WINDOWS_PROBLEM = 'a Windows drive, UNC or backslash-rooted path names no place in the project';

/**
 * Maps paths between the agent's view (logical paths such as `src/main.py`, or absolute paths under
 * `hostRoot`) and the sandbox the MCP server works in. Arguments that would leave the sandbox — `..`
 * above the root, absolute paths elsewhere, symbolic links out, encoded dots, NUL bytes, `~`,
 * `file://` URIs of other hosts — are refused with a `SandboxPathError` naming the argument, so
 * the call never reaches the server.
 *
 * @example
 * const rewriter = new SandboxPathRewriter({ sandboxRoot: '/tmp/sandbox-01HXM/worktree', hostRoot: '/home/me/project' });
 * const args = rewriter.rewriteArgs({ path: 'src/main.py' }, tool.inputSchema); // { path: '/tmp/sandbox-01HXM/worktree/src/main.py' }
 * const result = rewriter.rewriteResult(await client.callTool('read_file', args)); // sandbox paths back to 'src/main.py'
 */
export class SandboxPathRewriter {
  /** The sandbox root, resolved, and real (symbolic links resolved) if it existed at construction. */
  readonly sandboxRoot: string;
  /** The host root, resolved, and real if it existed at construction. */
  readonly hostRoot: string;

  readonly #sandboxSegments: readonly (readonly string[])[];
  readonly #anyRootSegments: readonly (readonly string[])[];
  readonly #needles: readonly string[];
  readonly #pattern: RegExp;
  readonly #hostUri: string;
  readonly #masker: PathMasker;

  constructor(config: SandboxPathRewriterConfig) {
    const sandboxAliases = rootAliases(absoluteRoot(config.sandboxRoot, 'sandboxRoot'));
    const hostAliases = rootAliases(absoluteRoot(config.hostRoot, 'hostRoot'));
    for (const sandbox of sandboxAliases) {
      for (const host of hostAliases) {
        if (isWithin(sandbox, host) || isWithin(host, sandbox)) {
          throw new McpActorsError(
            ErrorCode.INVALID_ARGUMENT,
            `sandboxRoot (${sandbox}) and hostRoot (${host}) must not contain each other: paths would be ambiguous ` +
              'and rewriting results would not be stable. Put the sandbox outside the project (for example under os.tmpdir()).',
            { details: { sandboxRoot: config.sandboxRoot, hostRoot: config.hostRoot } },
          );
        }
      }
    }
    this.sandboxRoot = sandboxAliases[0] as string;
    this.hostRoot = hostAliases[0] as string;
    this.#sandboxSegments = sandboxAliases.map(segmentsOf);
    this.#anyRootSegments = [...sandboxAliases, ...hostAliases].map(segmentsOf);
    // Boundary characters are percent-encoded too, so a rewritten URI can never put a sandbox root
    // after a boundary: that is what makes rewriting a result twice change nothing.
    this.#hostUri = `file://${pathToFileURL(this.hostRoot).pathname.replace(BOUNDARY_CHARS_GLOBAL, percentEncode)}`;

    this.#masker = new PathMasker([
      ...sandboxAliases.map((dir) => ({ dir, mask: SANDBOX_MASK })),
      ...(config.privateDirs ?? [])
        .flatMap((dir) => rootAliases(absoluteRoot(dir, 'privateDirs')))
        // A folder holding the project (or inside it) would mask the logical paths results are turned into.
        .filter((dir) => !hostAliases.some((host) => isWithin(dir, host) || isWithin(host, dir)))
        .map((dir) => ({ dir, mask: PRIVATE_MASK })),
    ]);

    const uriForms = sandboxAliases.map((alias) => pathToFileURL(alias).href.slice('file://'.length));
    this.#needles = unique([...sandboxAliases, ...uriForms]);
    const plain = alternation(sandboxAliases);
    const uri = alternation([...sandboxAliases, ...uriForms]);
    this.#pattern = new RegExp(
      `(?:(${caseless('file://')}(?:${caseless('localhost')})?)(?:${uri})|(?:${plain}))` + `(?:(/+)|(?=[${BOUNDARY}]|\\.(?:\\s|$)|$))`,
      'y',
    );
  }

  /**
   * The absolute sandbox path for a logical path (`src/main.py`, `./src`, `.`, `''`), an absolute
   * path under `hostRoot` or `sandboxRoot`, or a `file:` URI of one of those. `..` is applied
   * lexically and may not climb above the root; the result never contains `.` or `..` segments and
   * has no trailing slash. Throws `SandboxPathError` naming `argument` for anything else.
   */
  toSandbox(value: string, argument = 'path'): string {
    if (typeof value !== 'string') {
      refuse(argument, String(value), SandboxPathReason.NOT_A_STRING, `expected a string, got ${typeof value}`);
    }
    let text = value;
    if (isFileUri(value)) {
      text = fileUriPath(value, argument);
    } else {
      checkText(value, argument);
      if (value.startsWith('~')) {
        refuse(argument, value, SandboxPathReason.HOME_RELATIVE, 'home-relative paths (~) are not expanded');
      }
      if (isWindowsPath(value)) {
        refuse(argument, value, SandboxPathReason.OUTSIDE_ROOTS, WINDOWS_PROBLEM);
      }
    }
    let relative = segmentsOf(text);
    if (text.startsWith('/')) {
      const rest = this.#anyRootSegments.map((root) => stripRoot(relative, root)).find((r) => r !== undefined);
      if (rest === undefined) {
        refuse(argument, value, SandboxPathReason.OUTSIDE_ROOTS, `it is an absolute path outside the project (${this.hostRoot})`);
      }
      relative = rest;
    }
    const logical = climb(relative);
    if (logical === undefined) {
      refuse(argument, value, SandboxPathReason.PARENT_TRAVERSAL, '".." climbs above the project root');
    }
    const sandboxPath = logical.length === 0 ? this.sandboxRoot : `${this.sandboxRoot}/${logical.join('/')}`;
    this.#checkOnDisk(sandboxPath, argument, value);
    return sandboxPath;
  }

  /** The logical path (`src/main.py`; `.` for the root) of an absolute path under `sandboxRoot`. */
  toLogical(sandboxPath: string): string {
    const argument = 'sandboxPath';
    // A JavaScript caller can pass anything.
    const given: unknown = sandboxPath;
    if (typeof given !== 'string' || !given.startsWith('/')) {
      refuse(argument, String(given), SandboxPathReason.OUTSIDE_ROOTS, 'expected an absolute path under the sandbox root');
    }
    const segments = segmentsOf(sandboxPath);
    const rest = this.#sandboxSegments.map((root) => stripRoot(segments, root)).find((r) => r !== undefined);
    if (rest === undefined) {
      refuse(argument, sandboxPath, SandboxPathReason.OUTSIDE_ROOTS, `it is not under the sandbox root (${this.sandboxRoot})`);
    }
    const logical = climb(rest);
    if (logical === undefined) {
      refuse(argument, sandboxPath, SandboxPathReason.PARENT_TRAVERSAL, '".." climbs above the sandbox root');
    }
    return logical.length === 0 ? '.' : logical.join('/');
  }

  /**
   * A deep copy of tool-call arguments with every path rewritten into the sandbox, whatever its key
   * and however deep. Fields that hold paths (by key or schema, see `path-fields.ts`) are rewritten
   * whole, relative paths included. Every other string, and every object key, is checked if its
   * whole value looks like a path (`path-shape.ts`): an absolute path, `file:` URI, `~`, Windows
   * path or escaping `..` outside the project is refused; an absolute path or `file:` URI inside is
   * rewritten; a relative path that stays inside is left as it is. `file:` URIs keep their form;
   * URLs of other schemes in path fields pass unchanged if they contain no `..`. Never mutates
   * `args`; keys such as `__proto__` are copied as plain data.
   */
  rewriteArgs<T>(args: T, inputSchema?: JsonSchemaObject): T {
    const schemas = inputSchema === undefined ? [] : expandSchema(inputSchema, inputSchema);
    return this.#rewriteArg(args, inputSchema, schemas) as T;
  }

  /**
   * A deep copy of a tool result with sandbox paths turned back: `<sandboxRoot>/x` → `x`,
   * `<sandboxRoot>` → `.`, and `file://<sandboxRoot>/x` → `file://<hostRoot>/x` (a URI cannot be
   * relative). Applies to every string — text blocks, resource `uri`/`text`, `structuredContent`
   * values and keys — except image/audio `data` and resource `blob`s. Whatever still names the
   * sandbox root or a private folder in another spelling is masked (see `rewriteText`).
   * Rewriting twice changes nothing the second time.
   */
  rewriteResult<T>(result: T): T {
    return this.#rewriteOutput(result) as T;
  }

  /**
   * Rewrites sandbox paths in one string back to logical paths, then masks whatever still names the
   * sandbox root (`<sandbox>`) or a private folder (`<sandbox-private>`) in any other spelling (see
   * `path-masker.ts`): no result reveals where the sandbox really is.
   */
  rewriteText(text: string): string {
    return this.#masker.mask(this.#mapBack(text));
  }

  /**
   * Rewrites sandbox paths in one string, at path boundaries only. The left boundary is judged on
   * the text already rewritten, not on the input: once `<root>/` is removed, whatever follows is at
   * the start of a path, and judging it there is what a second pass would do.
   */
  #mapBack(text: string): string {
    if (!this.#needles.some((needle) => text.includes(needle))) return text;
    const candidates = new RegExp(CANDIDATE_START.source, 'g');
    let out = '';
    let index = 0;
    for (let found = candidates.exec(text); found !== null; found = candidates.exec(text)) {
      const at = found.index;
      if (at < index) continue;
      out += text.slice(index, at);
      const previous = out.at(-1);
      if (previous === undefined || BOUNDARY_CHAR.test(previous)) {
        this.#pattern.lastIndex = at;
        const match = this.#pattern.exec(text);
        if (match !== null) {
          out += this.#replacement(match[1], match[2], text, at + match[0].length);
          index = at + match[0].length;
          candidates.lastIndex = index;
          continue;
        }
      }
      out += text.charAt(at);
      index = at + 1;
    }
    return out + text.slice(index);
  }

  #replacement(uriPrefix: string | undefined, slashes: string | undefined, text: string, end: number): string {
    if (uriPrefix !== undefined) return slashes ? `${this.#hostUri}/` : this.#hostUri;
    if (!slashes) return '.';
    return startsSegment(text, end) ? '' : './';
  }

  #checkOnDisk(sandboxPath: string, argument: string, value: string): void {
    let root: string;
    let real: string;
    try {
      root = resolveOnDisk(this.sandboxRoot);
      real = resolveOnDisk(sandboxPath);
    } catch (cause) {
      if (!(cause instanceof UnresolvablePathError)) throw cause;
      throw new SandboxPathError(
        {
          argument,
          path: value,
          reason: SandboxPathReason.UNVERIFIABLE,
          problem: `it could not be checked on disk (${cause.code ?? 'error'})`,
        },
        { cause },
      );
    }
    if (!isWithin(root, real)) {
      refuse(argument, value, SandboxPathReason.SYMLINK_ESCAPE, 'a symbolic link along it leads outside the sandbox');
    }
  }

  #rewritePathString(value: string, argument: string): string {
    if (isFileUri(value)) return pathToFileURL(this.toSandbox(value, argument)).href;
    if (isNonFileUrl(value)) {
      // `https://...` in a `source` field is not a local path; it is safe to pass as it is as long
      // as nothing in it could climb if a server took it for a relative path.
      checkText(value, argument);
      if (value.split('/').includes('..')) {
        refuse(argument, value, SandboxPathReason.PARENT_TRAVERSAL, 'a URL in a path field may not contain ".." segments');
      }
      return value;
    }
    return this.toSandbox(value, argument);
  }

  /**
   * A string in a field not known to hold paths: checked and rewritten only if its whole value
   * looks like one. A path whose shape is unsure (a space in its last segment) counts only if it
   * names something that exists.
   */
  #rewriteLoose(text: string, argument: string): string {
    const like = pathLike(text);
    if (like === undefined) return text;
    switch (like.shape) {
      case 'absolute':
        if (!like.certain && !existsAt(text)) return text;
        return this.toSandbox(text, argument);
      case 'file-uri': {
        if (!like.certain && !existsAt(fileUriPath(text, argument))) return text;
        return pathToFileURL(this.toSandbox(text, argument)).href;
      }
      case 'home':
        return refuse(argument, text, SandboxPathReason.HOME_RELATIVE, 'home-relative paths (~) are not expanded');
      case 'windows':
        if (!like.certain) return text;
        return refuse(argument, text, SandboxPathReason.OUTSIDE_ROOTS, WINDOWS_PROBLEM);
      case 'relative-dots':
        if (!like.certain && !existsAt(`${this.sandboxRoot}/${text}`)) return text;
        this.#checkRelative(text, argument);
        return text;
    }
  }

  /**
   * A relative path with `..` that a server will resolve itself (from the sandbox root, its working
   * directory): it may not climb above the root, lexically (with `\` read as a separator too) or
   * through a symbolic link on the way.
   */
  #checkRelative(text: string, argument: string): void {
    checkText(text.replace(/\\/g, '/'), argument, text);
    if (climb(segmentsOf(text.replace(/\\/g, '/'))) === undefined) {
      refuse(argument, text, SandboxPathReason.PARENT_TRAVERSAL, '".." climbs above the project root');
    }
    this.#checkOnDisk(`${this.sandboxRoot}/${text}`, argument, text);
  }

  #rewriteArg(args: unknown, root: JsonSchemaObject | undefined, schemas: readonly JsonSchemaObject[]): unknown {
    type At = { readonly kind: FieldKind; readonly schemas: readonly JsonSchemaObject[]; readonly trail: readonly string[] };
    const nameOf = (trail: readonly string[]): string => (trail.length === 0 ? '(arguments)' : trail.join('.'));
    return mapStrings<At>(args, { kind: 'none', schemas, trail: [] }, new Map(), {
      leaf: (text, at) =>
        at.kind === 'path' || (at.kind === 'uri' && isFileUri(text))
          ? this.#rewritePathString(text, nameOf(at.trail))
          : this.#rewriteLoose(text, nameOf(at.trail)),
      key: (key, at) => this.#rewriteLoose(key, at.trail.length === 0 ? '(a key)' : `${at.trail.join('.')} (a key)`),
      inner: (at, key) => {
        if (typeof key === 'number')
          return { kind: at.kind, schemas: itemSchemas(at.schemas, key, root), trail: [...at.trail, String(key)] };
        const inner = propertySchemas(at.schemas, key, root);
        return { kind: fieldKind(key, inner), schemas: inner, trail: [...at.trail, key] };
      },
    });
  }

  #rewriteOutput(result: unknown): unknown {
    return mapStrings<true>(result, true, new Map(), {
      leaf: (text) => this.rewriteText(text),
      key: (key) => this.rewriteText(key),
      // An image's or audio's `data` and a resource's `blob` are base64: never rewritten.
      inner: (_, key, parent) => {
        if (isArray(parent)) return true;
        const binaryBlock = parent['type'] === 'image' || parent['type'] === 'audio';
        const resourceContents = Object.hasOwn(parent, 'uri') || Object.hasOwn(parent, 'mimeType');
        return (binaryBlock && key === 'data') || (resourceContents && key === 'blob') ? undefined : true;
      },
    });
  }
}

/**
 * A copy of a JSON value in which `visit.leaf` has replaced every string, told the string's place
 * (`At`); `visit.inner` gives the place of an array's item or an object's key, or `undefined` to keep
 * that child as it is. Only arrays and plain objects are copied; an object met twice is copied once.
 */
function mapStrings<At>(
  value: unknown,
  at: At,
  seen: Seen,
  visit: {
    leaf(text: string, at: At): unknown;
    inner(at: At, key: string | number, parent: Record<string, unknown> | readonly unknown[]): At | undefined;
    /** The key to copy an object's `key` under (default: unchanged). */
    key?(key: string, at: At): string;
  },
): unknown {
  if (typeof value === 'string') return visit.leaf(value, at);
  if (typeof value !== 'object' || value === null) return value;
  const copied = seen.get(value);
  if (copied !== undefined) return copied;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    value.forEach((element, index) => {
      const inner = visit.inner(at, index, value);
      out.push(inner === undefined ? element : mapStrings(element, inner, seen, visit));
    });
    return out;
  }
  if (!isPlainObject(value)) return value;
  const out = emptyLike(value);
  seen.set(value, out);
  for (const key of Object.keys(value)) {
    const inner = visit.inner(at, key, value);
    defineData(out, visit.key ? visit.key(key, at) : key, inner === undefined ? value[key] : mapStrings(value[key], inner, seen, visit));
  }
  return out;
}

/** Does something exist at this absolute path (a dangling link counts)? */
function existsAt(absolute: string): boolean {
  try {
    lstatSync(absolute);
    return true;
  } catch {
    return false;
  }
}

function absoluteRoot(root: unknown, name: string): string {
  if (typeof root !== 'string' || !path.isAbsolute(root)) {
    throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, `${name} must be an absolute path, got ${JSON.stringify(root)}`, {
      details: { [name]: root },
    });
  }
  return root;
}

/** After `<root>/`, does a path segment follow (rather than a boundary or the end)? */
function startsSegment(text: string, index: number): boolean {
  const next = text[index];
  if (next === undefined || BOUNDARY_CHAR.test(next)) return false;
  if (next === '.') {
    const after = text[index + 1];
    return after !== undefined && !/\s/.test(after);
  }
  return true;
}

const isArray = (value: Record<string, unknown> | readonly unknown[]): value is readonly unknown[] => Array.isArray(value);

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function emptyLike(value: object): Record<string, unknown> {
  return Object.getPrototypeOf(value) === null ? (Object.create(null) as Record<string, unknown>) : {};
}

/** Defines rather than assigns, so a `__proto__` key from JSON.parse stays a plain own property. */
function defineData(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function percentEncode(char: string): string {
  return `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Longest first, so one spelling never matches a prefix of another. */
function alternation(texts: readonly string[]): string {
  return unique(texts)
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
}

/** `file` → `[fF][iI][lL][eE]`: Node 20's RegExp has no inline `(?i:)`. */
function caseless(text: string): string {
  return Array.from(text)
    .map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeRegExp(c)))
    .join('');
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
