// The tool call's own cost, in-process, side by side in one process and in alternating rounds: the
// fast path (nobody inspecting, a read-only tool) and the machine (a no-op inspection observer).
// Speed is measured here, never asserted; every answer is checked.
//
//   npm run build && node --expose-gc bench/tool-call.mjs [--rounds=N] [--samples=N] [--only=fast|machine]
import { createRuntime, defineServer, defineTool } from '../dist/index.js';

const argv = process.argv.slice(2);
const flag = (name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const ROUNDS = Number(flag('rounds', 5));
const SAMPLES = Number(flag('samples', 10_000));
const ONLY = flag('only', '');
const percentile = (xs, p) => {
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
};
const median = (xs) => percentile(xs, 0.5);

const input = { type: 'object', properties: { site: { type: 'string' } } };
const roster = defineServer({
  name: 'roster',
  tools: [
    defineTool({
      name: 'list_shifts',
      domain: 'roster',
      category: 'read',
      description: 'read',
      input,
      call: (p, ctx) => ({ shifts: [`${ctx.tenant}:${p.site}`] }),
    }),
  ],
});
const config = { skills: { roster: { mcp_servers: ['roster'] } }, actors: { clerk: { skills: ['roster'] } } };

async function open(inspected) {
  let events = 0;
  const runtime = await createRuntime({ config, domainServers: [roster], ...(inspected ? { inspect: () => void (events += 1) } : {}) });
  const actor = await runtime.activate('clerk', { tenant: 'acme' });
  return { runtime, actor, events: () => events };
}

async function samples(actor, n) {
  const args = { site: 'north' };
  const out = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    const start = performance.now();
    const outcome = await actor.call('roster/list_shifts', args);
    out[i] = performance.now() - start;
    if (outcome.status !== 'committed' || outcome.result.data.shifts[0] !== 'acme:north')
      throw new Error(`call ended ${outcome.status}: ${outcome.error?.message}`);
  }
  return out;
}

const kinds = [
  ['fast', await open(false)],
  ['machine', await open(true)],
].filter(([k]) => ONLY === '' || k === ONLY);
for (const [, o] of kinds) await samples(o.actor, 2_000);
const p50 = Object.fromEntries(kinds.map(([k]) => [k, []]));
const p99 = Object.fromEntries(kinds.map(([k]) => [k, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? kinds : [...kinds].reverse();
  for (const [k, o] of order) {
    const s = await samples(o.actor, SAMPLES);
    p50[k].push(percentile(s, 0.5) * 1000);
    p99[k].push(percentile(s, 0.99) * 1000);
  }
}
for (const [k, o] of kinds) {
  if (k === 'machine' && o.events() === 0) throw new Error('the inspection observer saw nothing');
  console.log(
    `${k}: p50 ${median(p50[k]).toFixed(2)} µs (rounds ${p50[k].map((x) => x.toFixed(1)).join(' ')}), p99 ${median(p99[k]).toFixed(1)} µs`,
  );
  await o.runtime.shutdown();
}
