/**
 * Does a string look like a filesystem path, whatever field it came in? The path rewriter asks this
 * of every string a tool call carries, so a server that reads a path from `location`, `target` or
 * `input` meets the same checks as one that reads it from `path`. Getting it wrong either way costs
 * something: a path missed reaches the server unchecked, prose taken for a path is refused. So only
 * a string whose whole value is one path counts; prose that starts with one does not.
 */

/**
 * What kind of path a string looks like:
 * - `absolute`: `/etc/passwd`, `/home/me/My Documents/a.txt`
 * - `file-uri`: `file:///etc/passwd`, `FILE://localhost/x`
 * - `home`: `~`, `~/x`, `~root/x` (never expanded)
 * - `windows`: `C:\x`, `c:/x`, `\\server\share`, `\Windows\System32`
 * - `relative-dots`: `../x`, `a/../../x`, `..\x`, `..` — relative, with a `..` segment
 */
export type PathShape = 'absolute' | 'file-uri' | 'home' | 'windows' | 'relative-dots';

export interface PathLike {
  readonly shape: PathShape;
  /**
   * False when the only whitespace is in the last segment (`/etc/passwd is here`): prose as often
   * as a file name. The caller then treats it as a path only if it names something that exists.
   */
  readonly certain: boolean;
}

/** Linux's PATH_MAX: a longer string cannot be opened as a path. */
const MAX_PATH = 4096;
const DRIVE = /^[A-Za-z]:[\\/]/;
const UNC = /^\\\\[^\\\s]/;
/** `\Windows\System32`: two segments of two characters at least, none a regular expression's escape (`\d+\.\w`, `\bword\b`). */
const BACKSLASH_ROOTED = /^\\[^\\/:*?"<>|+()[\]{}^$\s]{2,}(?:\\[^\\/:*?"<>|+()[\]{}^$]{2,})+\\?$/;
const HOME = /^~(?:$|[A-Za-z0-9._-]*\/)/;
const FILE_URI = /^file:\//i;
/** Line breaks and other control characters (NUL aside, which the path checks refuse): text, not a path. */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
const CONTROL = /[\x01-\x08\x0a-\x1f\x7f]/;
/** Something no single path continues with after a space: another path, an option, quotes, shell syntax. */
const NOT_A_SEGMENT_START = /^(?:[/~\\'"`$|;&<>(){}=-]|file:|[A-Za-z]:[\\/])/i;
const SHELL_SYNTAX = /['"`$|;&<>]/;
const EXTENSION = /\.[A-Za-z0-9]{1,10}$/;

/** The path shape of `value`, or undefined for anything that is not one whole path. */
export function pathLike(value: string): PathLike | undefined {
  if (value.length === 0 || value.length > MAX_PATH || CONTROL.test(value)) return undefined;
  const shape = shapeOf(value);
  if (shape === undefined) return undefined;
  const firstSpace = value.search(/\s/);
  if (firstSpace === -1) return { shape, certain: true };
  const tokens = value.slice(firstSpace).trim().split(/\s+/);
  if (tokens.some((token) => NOT_A_SEGMENT_START.test(token) || SHELL_SYNTAX.test(token) || startsAnotherPath(token))) return undefined;
  const lastSeparator = Math.max(value.lastIndexOf('/'), value.lastIndexOf('\\'));
  // A space inside a directory name (`/home/me/My Documents/a.txt`): the rest is path again.
  if (lastSeparator > firstSpace) return { shape, certain: true };
  return { shape, certain: EXTENSION.test(value) };
}

/** `../x`, `./x`, `a/../b`: a word that is a relative path of its own, so the text holds two paths. */
function startsAnotherPath(token: string): boolean {
  const segments = token.split(/[\\/]/);
  return segments.includes('..') || (segments[0] === '.' && segments.length > 1);
}

/** `C:\x`, `c:/x`, `\\host\share`, `\Windows\System32`: a place no POSIX project holds. */
export function isWindowsPath(value: string): boolean {
  return DRIVE.test(value) || UNC.test(value) || BACKSLASH_ROOTED.test(value);
}

function shapeOf(value: string): PathShape | undefined {
  if (FILE_URI.test(value)) return 'file-uri';
  if (value.startsWith('/')) return 'absolute';
  if (HOME.test(value)) return 'home';
  if (isWindowsPath(value)) return 'windows';
  if (value.split(/[\\/]/).includes('..')) return 'relative-dots';
  return undefined;
}
