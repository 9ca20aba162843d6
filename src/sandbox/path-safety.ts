/**
 * The checks that keep a path inside the sandbox. Pure text checks first (NUL, encoded dots and
 * slashes, `~`, backslash traversal, `..` above the root), then one look at the disk: the path is
 * walked component by component the way the kernel would resolve it, so a symbolic link anywhere
 * along it — file, directory, parent or dangling — is followed to where it really leads.
 */

import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { SandboxPathError, SandboxPathReason } from '../errors/sandbox-path-error.js';

/** Linux gives up after 40 links in one resolution (ELOOP); so do we. */
const MAX_SYMLINK_HOPS = 40;

const ENCODED_DOT_OR_SLASH = /%(?:2e|2f|5c)/i;
const ENCODED_NUL = /%00/;
const FILE_URI = /^file:/i;
const URL_WITH_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\//i;
/** `file:` [ `//` authority ] path, with no query or fragment allowed. */
const FILE_URI_PARTS = /^file:(?:\/\/([^/?#]*))?([^?#]*)$/i;

/** Throws the one error type of this module. */
export function refuse(argument: string, value: string, reason: SandboxPathReason, problem: string): never {
  throw new SandboxPathError({ argument, path: value, reason, problem });
}

/** True for any `file:` URI (any case), which is read as a path rather than as a relative name. */
export function isFileUri(value: string): boolean {
  return FILE_URI.test(value);
}

/** True for `scheme://...` with a scheme other than `file` (`https://`, `s3://`): not a local path. */
export function isNonFileUrl(value: string): boolean {
  return URL_WITH_AUTHORITY.test(value) && !FILE_URI.test(value);
}

/**
 * Refuses what no path argument may contain, whatever it is relative to: NUL bytes, percent-encoded
 * dots, slashes or backslashes (servers that decode would see `..` or `/` we never checked), and a
 * `..` next to a backslash (a separator on Windows and for some path libraries).
 */
export function checkText(text: string, argument: string, original: string = text): void {
  if (text.includes('\0') || ENCODED_NUL.test(text)) {
    refuse(argument, original, SandboxPathReason.NUL_BYTE, 'it contains a NUL byte');
  }
  if (ENCODED_DOT_OR_SLASH.test(text)) {
    refuse(
      argument,
      original,
      SandboxPathReason.ENCODED_SEPARATOR,
      'it contains a percent-encoded dot, slash or backslash (%2e, %2f, %5c)',
    );
  }
  for (const segment of text.split('/')) {
    if (segment.includes('\\') && segment.split('\\').includes('..')) {
      refuse(
        argument,
        original,
        SandboxPathReason.BACKSLASH_TRAVERSAL,
        'it contains ".." next to a backslash, which some servers read as a separator',
      );
    }
  }
}

/**
 * The absolute path a `file:` URI names, percent-decoded and checked again after decoding (so a
 * double-encoded `%252e` is caught). Empty host and `localhost` are local; any other host is refused.
 */
export function fileUriPath(uri: string, argument: string): string {
  checkText(uri, argument);
  const parts = FILE_URI_PARTS.exec(uri);
  if (!parts) {
    refuse(argument, uri, SandboxPathReason.INVALID_URI, 'a file: URI naming a path may not have a query (?) or a fragment (#)');
  }
  const host = parts[1] ?? '';
  if (host !== '' && host.toLowerCase() !== 'localhost') {
    refuse(argument, uri, SandboxPathReason.REMOTE_FILE_URI, `it names a file on another host ("${host}")`);
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(parts[2] ?? '');
  } catch (cause) {
    throw new SandboxPathError(
      { argument, path: uri, reason: SandboxPathReason.INVALID_URI, problem: 'its percent-encoding is malformed' },
      { cause },
    );
  }
  if (!decoded.startsWith('/')) {
    refuse(argument, uri, SandboxPathReason.INVALID_URI, 'a file: URI must name an absolute path');
  }
  checkText(decoded, argument, uri);
  return decoded;
}

/** Path segments with empty and `.` segments dropped; `..` kept for `climb` to judge. */
export function segmentsOf(text: string): string[] {
  return text.split('/').filter((segment) => segment !== '' && segment !== '.');
}

/** Applies `..` lexically; undefined when one would climb above the starting point. */
export function climb(segments: readonly string[]): string[] | undefined {
  const stack: string[] = [];
  for (const segment of segments) {
    if (segment === '..') {
      if (stack.length === 0) return undefined;
      stack.pop();
    } else {
      stack.push(segment);
    }
  }
  return stack;
}

/** `candidate` is `root` or below it. Both absolute and normalised; `/root_evil` is not below `/root`. */
export function isWithin(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  return candidate.startsWith(root === '/' ? '/' : `${root}/`);
}

/** The segments after `root`'s when `segments` start with all of them, else undefined. */
export function stripRoot(segments: readonly string[], rootSegments: readonly string[]): string[] | undefined {
  if (segments.length < rootSegments.length) return undefined;
  for (let i = 0; i < rootSegments.length; i++) {
    if (segments[i] !== rootSegments[i]) return undefined;
  }
  return segments.slice(rootSegments.length);
}

/** The spellings of a root: as given (resolved), and its real path when it exists. */
export function rootAliases(root: string): string[] {
  const resolved = path.resolve(root);
  let real = resolved;
  try {
    real = realpathSync.native(resolved);
  } catch {
    // Does not exist (yet): the resolved spelling is all we have.
  }
  return real === resolved ? [real] : [real, resolved];
}

/** Thrown by `resolveOnDisk` when the walk cannot be completed. */
export class UnresolvablePathError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'UnresolvablePathError';
  }
}

/**
 * Where an absolute path really leads: each existing component is checked with `lstat`, every
 * symbolic link is replaced by its target (relative targets against the link's real directory, `..`
 * against the real parent, as the kernel does), and components that do not exist are kept as text.
 * A dangling link is therefore judged by where its target text points.
 */
export function resolveOnDisk(absolute: string): string {
  const pending = absolute.split('/').reverse();
  let current = '/';
  let hops = 0;
  while (pending.length > 0) {
    const segment = pending.pop() as string;
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      current = path.posix.dirname(current);
      continue;
    }
    const next = current === '/' ? `/${segment}` : `${current}/${segment}`;
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        current = next;
        continue;
      }
      throw new UnresolvablePathError(`cannot inspect ${next}: ${code ?? String(error)}`, code);
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) {
      throw new UnresolvablePathError(`more than ${MAX_SYMLINK_HOPS} symbolic links (a loop?) at ${next}`, 'ELOOP');
    }
    const target = readlinkSync(next);
    if (target.startsWith('/')) current = '/';
    pending.push(...target.split('/').reverse());
  }
  return current;
}
