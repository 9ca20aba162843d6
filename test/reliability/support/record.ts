/**
 * The reliability matrix's record: each row's test appends what it observed to the file named by
 * MCP_ACTORS_RELIABILITY_LOG (set by `npm run reliability`, which then writes docs/reliability.md).
 * Without it, nothing is written.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { isMcpActorsError } from '../../../src/errors/index.js';

export interface CatalogRow {
  readonly id: string;
  readonly kind: 'fixture' | 'inprocess' | 'transport' | 'model';
  readonly fault: string;
  readonly expected: string;
}

export const catalog: readonly CatalogRow[] = JSON.parse(readFileSync(new URL('../catalog.json', import.meta.url), 'utf8')) as CatalogRow[];

export function row(id: string): CatalogRow {
  const found = catalog.find((r) => r.id === id);
  if (!found) throw new Error(`no row "${id}" in test/reliability/catalog.json`);
  return found;
}

/** Called at the end of a row's test, after its assertions passed. */
export function record(id: string, observed: string, recoverMs?: number): void {
  row(id);
  const log = process.env.MCP_ACTORS_RELIABILITY_LOG;
  if (!log) return;
  appendFileSync(log, `${JSON.stringify({ id, observed, recoverMs: recoverMs === undefined ? null : Math.round(recoverMs) })}\n`);
}

/** Counts how each promise settled, to prove every call settles exactly once. */
export class Settlements {
  readonly outcomes: string[][] = [];
  track<T>(promise: Promise<T>): Promise<string> {
    const slot: string[] = [];
    this.outcomes.push(slot);
    return promise.then(
      () => {
        slot.push('ok');
        return 'ok';
      },
      (error: unknown) => {
        const code = isMcpActorsError(error) ? error.code : `untyped: ${String(error)}`;
        slot.push(code);
        return code;
      },
    );
  }
  /** Every call settled, and exactly once. */
  allOnce(): boolean {
    return this.outcomes.every((slot) => slot.length === 1);
  }
  codes(): string[] {
    return this.outcomes.map((slot) => slot.join('+'));
  }
}
