#!/usr/bin/env node
/**
 * The folder check (`npm run check:folders`, part of `npm test`): src/'s folders import downwards.
 * madge reads the module graph (type-only imports included: a type is a dependency too); the
 * check collapses it to folders (`src/<folder>`; a file at src/'s top is its own node) and fails
 * on any cycle between folders, and on any cycle between files.
 */
import madge from 'madge';

const graph = (await madge('src', { fileExtensions: ['ts', 'mjs'], tsConfig: 'tsconfig.json' })).obj();

const folderOf = (file) => (file.includes('/') ? `${file.slice(0, file.indexOf('/'))}/` : file);
/** @type {Map<string, Map<string, string[]>>} folder → folder → the imports that make the edge */
const edges = new Map();
for (const [file, imports] of Object.entries(graph)) {
  for (const target of imports) {
    const [from, to] = [folderOf(file), folderOf(target)];
    if (from === to) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const byTarget = edges.get(from);
    if (!byTarget.has(to)) byTarget.set(to, []);
    byTarget.get(to).push(`${file} → ${target}`);
  }
}

/** Tarjan's strongly connected components over a graph given as node → successors. */
function cycles(nodes, next) {
  let index = 0;
  const [order, low, onStack, stack, found] = [new Map(), new Map(), new Set(), [], []];
  const visit = (node) => {
    order.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const succ of next(node)) {
      if (!order.has(succ)) {
        visit(succ);
        low.set(node, Math.min(low.get(node), low.get(succ)));
      } else if (onStack.has(succ)) low.set(node, Math.min(low.get(node), order.get(succ)));
    }
    if (low.get(node) === order.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!order.has(node)) visit(node);
  return found;
}

const problems = [];
const folders = new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]);
for (const component of cycles([...folders].sort(), (f) => [...(edges.get(f)?.keys() ?? [])])) {
  const inside = new Set(component);
  const lines = component.flatMap((from) =>
    [...(edges.get(from) ?? [])].filter(([to]) => inside.has(to)).flatMap(([, why]) => why.map((w) => `    ${w}`)),
  );
  problems.push(`folders import each other: ${component.join(' ⇄ ')}\n${lines.join('\n')}`);
}
for (const component of cycles(Object.keys(graph).sort(), (f) => graph[f] ?? [])) {
  problems.push(`files import each other: ${component.join(' ⇄ ')}`);
}

if (problems.length > 0) {
  console.error(`check-folders: ${problems.length} cycle(s) in src/\n\n${problems.join('\n\n')}`);
  process.exit(1);
}
console.log(`check-folders: ${Object.keys(graph).length} files in ${folders.size} folders, no cycles`);
