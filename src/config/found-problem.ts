/** A problem found in a configuration, before its path is rendered as `file:line:col` or a key path. */
export type PathSegment = string | number;

/** A problem before its path is rendered: the path is still a list of keys and indices. */
export interface FoundProblem {
  readonly path: readonly PathSegment[];
  readonly problem: string;
  readonly hint?: string;
  /** The variable, when the only problem is that a `${VAR}` reference is not set. */
  readonly unset?: string;
  /**
   * The value the problem is about, as text (each string and number in it): where that value is a
   * secret (under `headers` or `env`, a key named like a credential, a `${VAR}` expansion),
   * `placeProblems` takes it out of the problem and the hint.
   */
  readonly shown?: readonly string[];
}
