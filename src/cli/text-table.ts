/**
 * Plain-text tables for the terminal: columns padded to their widest cell, two spaces apart,
 * the last column never padded (so a long last column wraps instead of pushing the others).
 */

import { displayWidth } from './terminal-width.js';

/** `text` padded with spaces to `width` terminal columns (wide characters count two). */
const padEnd = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - displayWidth(text)));

/**
 * @example
 * textTable([['SERVER', 'STATE'], ['fixture', 'RUNNING']]); // 'SERVER   STATE\nfixture  RUNNING'
 */
export function textTable(rows: readonly (readonly string[])[], indent = ''): string {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((row) => displayWidth(row[i] ?? ''))));
  return rows
    .map(
      (row) =>
        indent +
        row
          .map((cell, i) => (i === row.length - 1 ? cell : padEnd(cell, widths[i] ?? 0)))
          .join('  ')
          .trimEnd(),
    )
    .join('\n');
}

/** `12 ms`, `1.5 s`, `3 min 5 s`, `2 h 4 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3_600)} h ${Math.floor((seconds % 3_600) / 60)} min`;
}

/** A command and its arguments as a person would type them: words with spaces or quotes are quoted. */
export function shellWords(words: readonly string[]): string {
  return words.map((word) => (/^[\w@%+=:,./${}-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** A field that should hold a string, as it came: nothing when absent, JSON when it is not a string. */
export function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
