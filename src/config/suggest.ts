/** "Did you mean …?": the nearest allowed word to a misspelled one. */

/** Edit distance counting a swap of two neighbours as one edit too (optimal string alignment): `evn` is one from `env`. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return at(a.length, b.length);
}

/** What a person most likely meant by `word`: equal ignoring case, or within two edits (one for words of three letters or fewer, so `id` does not suggest `cwd`). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.length <= 3 ? 1 : 2;
  let best: { candidate?: string; distance: number } = { distance: limit + 1 };
  for (const candidate of candidates) {
    // Equal ignoring case is 0 edits: nothing is nearer.
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < best.distance) best = { candidate, distance };
  }
  return best.candidate;
}

/** `"a", "b" or "c"` — for messages that list the allowed words. */
export function quotedList(words: readonly string[], conjunction = 'or'): string {
  const quoted = words.map((word) => JSON.stringify(word));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} ${conjunction} ${quoted.at(-1)}`;
}
