/**
 * Where writes that escaped a sandbox may have landed, for the whole host process: when a write
 * call's sandbox holds a link that resolves outside it (seen by its watcher while the call runs, or
 * left in its change set), the link's destination is noted here for a while. Another sandbox that
 * sees a change under such a destination knows who made it — the writer that escaped through the
 * link — and does not blame a read-only call of its own that happened to be running (issue 15: a
 * violation is attributed to the call that made it, not to a reader of another actor).
 *
 * Entries expire `HOLD_MS` after they were last noted: what the escaped server writes arrives in
 * the other sandbox's watcher within milliseconds; the hold only covers a slow event loop.
 */
import { isAbsolute, relative } from 'node:path';

export interface EscapeTarget {
  /** Absolute, real path the link led to. */
  readonly resolved: string;
  /** Who made the link: the tool of the write call, for the record. */
  readonly by: string;
}

const HOLD_MS = 5_000;
const MAX_TARGETS = 256;
const targets = new Map<string, { by: string; until: number }>();

/**
 * Notes that writes of `by` may land under `resolved` for the next few seconds.
 *
 * @example
 * noteEscapeTarget('/home/me/other-sandbox', 'files/write_file');
 */
export function noteEscapeTarget(resolved: string, by: string, now = Date.now()): void {
  targets.delete(resolved);
  targets.set(resolved, { by, until: now + HOLD_MS });
  if (targets.size > MAX_TARGETS) targets.delete(targets.keys().next().value as string);
}

/** The live escape target `absolute` lies under, if any. */
export function escapeTargetOf(absolute: string, now = Date.now()): EscapeTarget | undefined {
  for (const [resolved, entry] of targets) {
    if (entry.until < now) {
      targets.delete(resolved);
      continue;
    }
    const rel = relative(resolved, absolute);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) return { resolved, by: entry.by };
  }
  return undefined;
}

/** Forgets every target (tests). */
export function clearEscapeTargets(): void {
  targets.clear();
}
