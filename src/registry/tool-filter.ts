/**
 * Include / exclude lists of tool names: exact names and glob patterns (`*` any run of
 * characters, `?` one character). A tool passes when it matches an include entry (or there is
 * no include list) and matches no exclude entry.
 */

export interface ToolFilter {
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/** Whether a tool name matches one include / exclude entry: an exact name, or a `*` / `?` glob. */
export function toolPatternMatches(pattern: string, tool: string): boolean {
  return /[*?]/.test(pattern) ? globToRegExp(pattern).test(tool) : pattern === tool;
}

/** A predicate for `filter`, compiled once. */
export function compileToolFilter(filter: ToolFilter | undefined): (name: string) => boolean {
  if (!filter) return () => true;
  const include = filter.include?.map(globToRegExp);
  const exclude = (filter.exclude ?? []).map(globToRegExp);
  return (name) => (include === undefined || include.some((re) => re.test(name))) && !exclude.some((re) => re.test(name));
}
