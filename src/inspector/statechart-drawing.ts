/**
 * A machine's statechart as an SVG drawing, made from the machine definition that `@xstate.actor`
 * messages carry (its config as JSON): one node per state (nested states too, named by their path
 * `running.idle`), an arrow per transition target, in layers: the initial state first, then each
 * state one layer right of the first state that leads to it (a compound state leads to its initial
 * child). Each node is a `<g class="state" data-path="...">` so a page can mark the active ones.
 *
 * Both functions are self-contained (no imports, no outer names): the inspector page inlines their
 * source (`Function.prototype.toString`) and runs them in the browser; tests run them in Node.
 */

/** The SVG of `definitionJson` (a machine config as JSON), or '' when it has no states. */
export function statechartSvg(definitionJson: string, machineName: string): string {
  type Config = Record<string, unknown>;
  interface StateNode {
    readonly path: string;
    readonly parent: string | undefined;
    readonly initial: string | undefined;
    readonly config: Config;
  }
  const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const isConfig = (value: unknown): value is Config => typeof value === 'object' && value !== null && !Array.isArray(value);
  let root: unknown;
  try {
    root = JSON.parse(definitionJson);
  } catch {
    return '';
  }
  if (!isConfig(root)) return '';
  const nodes = new Map<string, StateNode>();
  const byId = new Map<string, string>();
  const rootId = typeof root.id === 'string' ? root.id : machineName;
  const visit = (config: Config, parent: string | undefined, depth: number): void => {
    if (!isConfig(config.states) || depth > 8) return;
    for (const [key, child] of Object.entries(config.states)) {
      const path = parent === undefined ? key : `${parent}.${key}`;
      const childConfig = isConfig(child) ? child : {};
      nodes.set(path, {
        path,
        parent,
        initial: typeof childConfig.initial === 'string' ? childConfig.initial : undefined,
        config: childConfig,
      });
      if (typeof childConfig.id === 'string') byId.set(childConfig.id, path);
      visit(childConfig, path, depth + 1);
    }
  };
  visit(root, undefined, 0);
  if (nodes.size === 0) return '';

  const resolve = (source: string, target: string): string | undefined => {
    let path: string;
    if (target.startsWith('#')) {
      const [head = '', ...rest] = target.slice(1).split('.');
      const base = head === rootId ? '' : byId.get(head);
      if (base === undefined) return undefined;
      path = [base, ...rest].filter((part) => part !== '').join('.');
    } else if (target.startsWith('.')) {
      path = source + target;
    } else {
      const parent = nodes.get(source)?.parent;
      path = parent === undefined ? target : `${parent}.${target}`;
    }
    return nodes.has(path) ? path : undefined;
  };
  const targetsOf = (transition: unknown): string[] => {
    if (typeof transition === 'string') return [transition];
    if (Array.isArray(transition)) return transition.flatMap(targetsOf);
    if (!isConfig(transition)) return [];
    const target = transition.target;
    if (typeof target === 'string') return [target];
    return Array.isArray(target) ? target.filter((t): t is string => typeof t === 'string') : [];
  };
  const edges = new Map<string, { from: string; to: string; labels: string[] }>();
  const add = (from: string, label: string, transition: unknown): void => {
    for (const target of targetsOf(transition)) {
      const to = resolve(from, target);
      if (to === undefined) continue;
      const key = `${from}\n${to}`;
      const edge = edges.get(key) ?? { from, to, labels: [] };
      edge.labels.push(label);
      edges.set(key, edge);
    }
  };
  for (const node of nodes.values()) {
    const { config, path } = node;
    if (isConfig(config.on)) for (const [event, transition] of Object.entries(config.on)) add(path, event, transition);
    if (config.always !== undefined) add(path, 'always', config.always);
    if (isConfig(config.after)) for (const [delay, transition] of Object.entries(config.after)) add(path, `after ${delay}`, transition);
    if (config.onDone !== undefined) add(path, 'done', config.onDone);
    const invokes = Array.isArray(config.invoke) ? (config.invoke as unknown[]) : config.invoke === undefined ? [] : [config.invoke];
    for (const invoke of invokes) {
      if (!isConfig(invoke)) continue;
      add(path, 'done', invoke.onDone);
      add(path, 'error', invoke.onError);
    }
  }

  // Layers: breadth first from the initial state; a state no path reaches goes right of its parent.
  const layer = new Map<string, number>();
  const queue: string[] = [];
  const reach = (path: string, at: number): void => {
    if (layer.has(path)) return;
    layer.set(path, at);
    queue.push(path);
  };
  const first = nodes.keys().next().value as string;
  const initial = typeof root.initial === 'string' && nodes.has(root.initial) ? root.initial : first;
  const leadsTo = new Map<string, string[]>();
  for (const edge of edges.values()) leadsTo.set(edge.from, [...(leadsTo.get(edge.from) ?? []), edge.to]);
  const spread = (): void => {
    while (queue.length > 0) {
      const path = queue.shift() as string;
      const at = layer.get(path) as number;
      const node = nodes.get(path) as StateNode;
      if (node.initial !== undefined && nodes.has(`${path}.${node.initial}`)) reach(`${path}.${node.initial}`, at + 1);
      for (const to of leadsTo.get(path) ?? []) reach(to, at + 1);
    }
  };
  reach(initial, 0);
  spread();
  for (const node of nodes.values()) {
    if (layer.has(node.path)) continue;
    reach(node.path, node.parent === undefined ? 0 : (layer.get(node.parent) ?? 0) + 1);
    spread();
  }

  const HEIGHT = 28;
  const GAP_X = 56;
  const GAP_Y = 16;
  const MARGIN = 12;
  const columns: (string[] | undefined)[] = []; // a layer no node is on leaves a hole
  for (const path of nodes.keys()) {
    const at = layer.get(path) as number;
    (columns[at] ??= []).push(path);
  }
  const box = new Map<string, { x: number; y: number; w: number }>();
  let x = MARGIN;
  let height = 0;
  for (const column of columns) {
    if (column === undefined) continue;
    const w = Math.min(240, Math.max(64, ...column.map((path) => path.length * 7 + 24)));
    column.forEach((path, index) => box.set(path, { x, y: MARGIN + index * (HEIGHT + GAP_Y), w }));
    height = Math.max(height, MARGIN + column.length * (HEIGHT + GAP_Y) + 40);
    x += w + GAP_X;
  }
  const width = x - GAP_X + MARGIN;

  const lines: string[] = [];
  for (const edge of edges.values()) {
    const a = box.get(edge.from);
    const b = box.get(edge.to);
    if (a === undefined || b === undefined) continue;
    let d: string;
    if (edge.from === edge.to) {
      d = `M ${a.x + a.w - 16} ${a.y} C ${a.x + a.w - 8} ${a.y - 18}, ${a.x + a.w + 14} ${a.y - 6}, ${a.x + a.w} ${a.y + 8}`;
    } else if ((layer.get(edge.to) as number) > (layer.get(edge.from) as number)) {
      const x1 = a.x + a.w;
      const y1 = a.y + HEIGHT / 2;
      const y2 = b.y + HEIGHT / 2;
      d = `M ${x1} ${y1} C ${x1 + GAP_X / 2} ${y1}, ${b.x - GAP_X / 2} ${y2}, ${b.x} ${y2}`;
    } else {
      const x1 = a.x + a.w / 2;
      const x2 = b.x + b.w / 2;
      const y1 = a.y + HEIGHT;
      const y2 = b.y + HEIGHT;
      const dip = Math.max(y1, y2) + 26;
      d = `M ${x1} ${y1} C ${x1} ${dip}, ${x2} ${dip}, ${x2} ${y2}`;
    }
    lines.push(`<path class="edge" d="${d}" marker-end="url(#statechart-arrow)"><title>${escape(edge.labels.join(', '))}</title></path>`);
  }
  const states: string[] = [];
  for (const [path, { x: left, y: top, w }] of box) {
    states.push(
      `<g class="state" data-path="${escape(path)}"><rect x="${left}" y="${top}" width="${w}" height="${HEIGHT}" rx="7"/>` +
        `<text x="${left + w / 2}" y="${top + HEIGHT / 2 + 4}" text-anchor="middle">${escape(path)}</text></g>`,
    );
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="statechart" role="img" aria-label="statechart of ${escape(machineName)}" ` +
    `width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<defs><marker id="statechart-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">` +
    `<path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>${lines.join('')}${states.join('')}</svg>`
  );
}

/** Every state path active in a snapshot's `value` (`{ running: 'idle' }` → `running`, `running.idle`). */
export function activeStatePaths(value: unknown): string[] {
  const paths: string[] = [];
  const walk = (inner: unknown, prefix: string, depth: number): void => {
    if (typeof inner === 'string') paths.push(prefix === '' ? inner : `${prefix}.${inner}`);
    else if (typeof inner === 'object' && inner !== null && depth < 16) {
      for (const [key, child] of Object.entries(inner)) {
        const path = prefix === '' ? key : `${prefix}.${key}`;
        paths.push(path);
        walk(child, path, depth + 1);
      }
    }
  };
  walk(value, '', 0);
  return paths;
}
