/** Types of scripts/doc-blocks.mjs (see there). */
export declare const repoRoot: string;
export declare const docFiles: readonly string[];

export interface DocBlock {
  /** The doc, relative to the repository root. */
  readonly doc: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
  /** The line of the closing fence, 1-based. */
  readonly endLine: number;
  readonly lang: string;
  readonly code: string;
  /** `<!-- example: <path>[#region] -->` on the line right above the fence. */
  readonly example?: { readonly path: string; readonly region?: string };
}

export declare function blocksOf(doc: string): DocBlock[];
export declare function exampleText(path: string, region?: string): string;
