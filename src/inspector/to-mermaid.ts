/**
 * Draws a machine as a Mermaid `stateDiagram-v2`, straight from its definition, so the pictures
 * in the README cannot drift from the code (a test compares them).
 */
import type { AnyStateMachine } from 'xstate';

interface NodeLike {
  key: string;
  id: string;
  states: Record<string, NodeLike>;
  transitions: Map<string, TransitionLike[]>;
  always?: TransitionLike[];
  initial?: { target: readonly NodeLike[] };
  type: string;
}
interface TransitionLike {
  eventType: string;
  target: readonly NodeLike[] | undefined;
  guard?: unknown;
}

export function toMermaid(machine: AnyStateMachine): string {
  const lines = ['stateDiagram-v2'];
  const root = machine.root as unknown as NodeLike;
  if (Object.keys(root.states).length === 0) {
    // A machine whose work is all in its root (the server supervisor: one state, each event
    // answered by an event) draws as that one state, with its transitions.
    lines.push(`  [*] --> ${machine.id}`);
    drawTransitions(root, machine.id, lines, '  ');
  } else drawChildren(root, lines, '  ');
  return lines.join('\n');
}

function nameOf(node: NodeLike): string {
  return node.id.replace(/^[^.]+\./, '').replace(/\./g, '_');
}

function drawChildren(parent: NodeLike, lines: string[], indent: string): void {
  const children = Object.values(parent.states);
  const initial = parent.initial?.target[0];
  if (initial) lines.push(`${indent}[*] --> ${nameOf(initial)}`);
  for (const child of children) {
    if (parent.id.includes('.') || parent.type !== 'compound' || parent !== rootOf(parent)) {
      lines.push(`${indent}state "${child.key}" as ${nameOf(child)}`);
    }
    if (Object.keys(child.states).length > 0) {
      lines.push(`${indent}state ${nameOf(child)} {`);
      drawChildren(child, lines, `${indent}  `);
      lines.push(`${indent}}`);
    }
  }
  for (const child of children) {
    if (child.type === 'final') lines.push(`${indent}${nameOf(child)} --> [*]`);
    drawTransitions(child, nameOf(child), lines, indent);
  }
}

/** A node's transitions; one without a target (actions only, the state stays) draws as a self-transition. */
function drawTransitions(node: NodeLike, name: string, lines: string[], indent: string): void {
  const transitions = [...node.transitions.values()].flat().concat(node.always ?? []);
  for (const transition of transitions) {
    const targets = transition.target === undefined || transition.target.length === 0 ? undefined : transition.target;
    if (!targets) lines.push(`${indent}${name} --> ${name}: ${labelOf(transition)}`);
    for (const target of targets ?? []) lines.push(`${indent}${name} --> ${nameOf(target)}: ${labelOf(transition)}`);
  }
}

function rootOf(node: NodeLike): NodeLike {
  return (node as NodeLike & { machine: { root: NodeLike } }).machine.root;
}

function labelOf(transition: TransitionLike): string {
  const event = transition.eventType;
  let label: string;
  if (event === '') label = 'always';
  else if (event.startsWith('xstate.after.')) label = `after ${event.split('.')[2]}`;
  else if (event.startsWith('xstate.done.actor.')) label = 'done';
  else if (event.startsWith('xstate.error.actor.')) label = 'error';
  else label = event;
  const guard = guardName(transition.guard);
  return guard ? `${label} [${guard}]` : label;
}

function guardName(guard: unknown): string | undefined {
  if (typeof guard === 'string') return guard;
  if (guard && typeof guard === 'object' && 'type' in guard) return String(guard.type);
  return undefined;
}
