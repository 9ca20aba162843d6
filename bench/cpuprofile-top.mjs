// Self and total time per function of a V8 .cpuprofile (from `node --cpu-prof`), and self time per
// file — how the call path's hot spots were found (docs/benchmarks.md, issue 8).
//
//   node --cpu-prof --cpu-prof-dir=prof some-driver.mjs && node bench/cpuprofile-top.mjs prof/*.cpuprofile [top=40]
//
// Percentages are of all samples, idle included; "(idle)" and "writeUtf8String" (the stdin write
// syscall) move with the machine's load, so compare profiles taken side by side.
import { readFileSync } from 'node:fs';
const [file, topN = '40'] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const dt = p.timeDeltas;
let total = 0;
for (let i = 0; i < p.samples.length; i++) {
  const d = dt[i] ?? 0;
  total += d;
  self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + d);
}
const key = (n) =>
  `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*\/(node_modules|pipeline)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
const selfBy = new Map(),
  totalBy = new Map();
for (const [id, t] of self) {
  const n = byId.get(id);
  selfBy.set(key(n), (selfBy.get(key(n)) ?? 0) + t);
  const seen = new Set();
  let cur = id;
  while (cur !== undefined) {
    const k = key(byId.get(cur));
    if (!seen.has(k)) {
      seen.add(k);
      totalBy.set(k, (totalBy.get(k) ?? 0) + t);
    }
    cur = parent.get(cur);
  }
}
const pct = (t) => ((100 * t) / total).toFixed(1).padStart(5) + '%';
console.log('total ms', (total / 1000).toFixed(0));
console.log('--- self');
[...selfBy]
  .sort((a, b) => b[1] - a[1])
  .slice(0, +topN)
  .forEach(([k, t]) => console.log(pct(t), k));
console.log('--- total');
[...totalBy]
  .sort((a, b) => b[1] - a[1])
  .slice(0, +topN)
  .forEach(([k, t]) => console.log(pct(t), k));
// by file
const byFile = new Map();
for (const [id, t] of self) {
  const u = byId.get(id).callFrame.url.replace(/^.*\/(node_modules|pipeline)\//, '$1/') || '(native)';
  byFile.set(u, (byFile.get(u) ?? 0) + t);
}
console.log('--- self by file');
[...byFile]
  .sort((a, b) => b[1] - a[1])
  .slice(0, 30)
  .forEach(([k, t]) => console.log(pct(t), k));
