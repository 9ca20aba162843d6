/**
 * What the heap retains, for leak checks: a V8 heap snapshot (which collects garbage first)
 * summed by kind. Compiled code is counted apart: the JIT keeps compiling hot functions for
 * thousands of calls, and that growth (hundreds of KiB) would hide a leak of objects.
 */
import { getHeapSnapshot } from 'node:v8';

export interface RetainedHeap {
  /** Bytes of everything but code: objects, strings, arrays, closures, shapes. A leak grows this. */
  readonly objects: number;
  /** Bytes of compiled code and the JIT's own bookkeeping. */
  readonly code: number;
}

interface SnapshotJson {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
}

/**
 * Takes a heap snapshot (a full collection first) and sums its nodes' own sizes. Takes a few
 * seconds on a large heap: measure twice (the middle and the end of a long run), not per step.
 *
 * @example
 * const middle = await retainedHeap();
 * // ... as many cycles again ...
 * expect((await retainedHeap()).objects - middle.objects).toBeLessThan(48 * 1024);
 */
export async function retainedHeap(): Promise<RetainedHeap> {
  const chunks: string[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(String(chunk));
  const snap = JSON.parse(chunks.join('')) as SnapshotJson;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const sizeAt = fields.indexOf('self_size');
  let objects = 0;
  let code = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const typeIndex = snap.nodes[i + typeAt];
    const size = snap.nodes[i + sizeAt];
    if (typeIndex === undefined || size === undefined) throw new Error('the heap snapshot ends in the middle of a node');
    const type = types[typeIndex];
    // "hidden" nodes are V8's internals (weak lists of code dependents, feedback), code's companions.
    if (type === 'code' || type === 'hidden') code += size;
    else objects += size;
  }
  return { objects, code };
}
