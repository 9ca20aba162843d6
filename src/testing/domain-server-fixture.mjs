#!/usr/bin/env node
/**
 * A small "roster" domain server (ADR-004-F's example domain) served over stdio with
 * `serveOverStdio` (the tenant from MCP_ACTORS_TENANT, one per process), or with `--http` over
 * streamable HTTP with `serveOverHttp`: the same kind of `DomainServer` that runs in-process,
 * behind a real MCP transport. One tool per category:
 *
 *   roster_list_shifts         read        shifts between two dates (optionally at one site), and the tenant it saw
 *   roster_propose_assignment  propose     records a proposal to put a worker on a shift
 *   roster_delete_shift        execute     deletes one shift of the tenant; an unknown shift is an error
 *   roster_purge               restricted  deletes every shift of the tenant (needs confirm: true)
 *
 * Every tenant starts with the same three shifts; state lives in this process only.
 *
 *   node domain-server-fixture.mjs                        stdio, tenant from MCP_ACTORS_TENANT
 *   node domain-server-fixture.mjs --http --tenant acme   HTTP, single-tenant mode
 *   node domain-server-fixture.mjs --http                 HTTP, bearer tokens from ROSTER_TOKENS,
 *       a JSON object { "<token>": { "tenant": "...", "scopes": ["tool:roster_purge"] } }
 *
 * Over HTTP the startup line on stderr holds the URL, and each audit record is one JSON line on
 * stdout.
 *
 * Plain JavaScript on purpose: it is spawned as a process, and imports the built package, so it
 * runs only from `dist/testing/` after `npm run build`. Whoever spawns it logs its process group
 * (McpClient does, through src/process/process-groups.ts).
 */
import { defineServer, defineTool, serveOverHttp, serveOverStdio } from '../index.js';

const SEED = [
  { id: 's1', date: '2026-05-01', site_id: 'north' },
  { id: 's2', date: '2026-05-02', site_id: 'south' },
  { id: 's3', date: '2026-05-09', site_id: 'north' },
];
/** tenant -> shifts */
const shiftsByTenant = new Map();
const shiftsOf = (tenant) => {
  if (!shiftsByTenant.has(tenant))
    shiftsByTenant.set(
      tenant,
      SEED.map((shift) => ({ ...shift })),
    );
  return shiftsByTenant.get(tenant);
};
let proposals = 0;

const shift = {
  type: 'object',
  properties: { id: { type: 'string' }, date: { type: 'string' }, site_id: { type: 'string' } },
  required: ['id', 'date', 'site_id'],
};

const listShifts = defineTool({
  name: 'roster_list_shifts',
  domain: 'roster',
  category: 'read',
  description: 'Lists the shifts between date_from and date_to (inclusive), optionally at one site.',
  input: {
    type: 'object',
    properties: {
      date_from: { type: 'string', format: 'date' },
      date_to: { type: 'string', format: 'date' },
      site_id: { type: 'string' },
    },
    required: ['date_from', 'date_to'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    properties: { shifts: { type: 'array', items: shift }, tenant: { type: 'string' } },
    required: ['shifts', 'tenant'],
  },
  call: ({ date_from, date_to, site_id }, ctx) => ({
    shifts: shiftsOf(ctx.tenant).filter(
      (s) => s.date >= date_from && s.date <= date_to && (site_id === undefined || s.site_id === site_id),
    ),
    tenant: ctx.org_id,
  }),
});

const proposeAssignment = defineTool({
  name: 'roster_propose_assignment',
  domain: 'roster',
  category: 'propose',
  description: 'Proposes putting a worker on a shift; a person approves the proposal before anything changes.',
  input: {
    type: 'object',
    properties: { shift_id: { type: 'string' }, worker_id: { type: 'string' } },
    required: ['shift_id', 'worker_id'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    properties: {
      proposal_id: { type: 'string' },
      shift_id: { type: 'string' },
      worker_id: { type: 'string' },
      status: { const: 'proposed' },
      tenant: { type: 'string' },
    },
    required: ['proposal_id', 'status', 'tenant'],
  },
  call: async ({ shift_id, worker_id }, ctx) => ({
    proposal_id: `p${++proposals}`,
    shift_id,
    worker_id,
    status: 'proposed',
    tenant: ctx.tenant,
  }),
});

const deleteShift = defineTool({
  name: 'roster_delete_shift',
  domain: 'roster',
  category: 'execute',
  description: 'Deletes one shift.',
  input: {
    type: 'object',
    properties: { shift_id: { type: 'string' } },
    required: ['shift_id'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    properties: { deleted: { type: 'string' }, tenant: { type: 'string' } },
    required: ['deleted', 'tenant'],
  },
  call: ({ shift_id }, ctx) => {
    const shifts = shiftsOf(ctx.tenant);
    const index = shifts.findIndex((s) => s.id === shift_id);
    if (index < 0) throw new Error(`no shift "${shift_id}" for tenant "${ctx.tenant}"`);
    shifts.splice(index, 1);
    return { deleted: shift_id, tenant: ctx.tenant };
  },
});

const purge = defineTool({
  name: 'roster_purge',
  domain: 'roster',
  category: 'restricted',
  description: 'Deletes every shift of the tenant. Irreversible.',
  input: {
    type: 'object',
    properties: { confirm: { const: true } },
    required: ['confirm'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    properties: { purged: { type: 'integer' }, tenant: { type: 'string' } },
    required: ['purged', 'tenant'],
  },
  call: (_params, ctx) => {
    const purged = shiftsOf(ctx.tenant).length;
    shiftsByTenant.set(ctx.tenant, []);
    return { purged, tenant: ctx.tenant };
  },
});

const roster = defineServer({
  name: 'roster',
  version: '1.0.0',
  tools: [listShifts, proposeAssignment, deleteShift, purge],
});

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
if (argv.includes('--http')) {
  const tenant = option('--tenant');
  const tokens = JSON.parse(process.env.ROSTER_TOKENS ?? '{}');
  const bearer = (request) => /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  const served = await serveOverHttp(roster, {
    ...(tenant === undefined ? { authenticate: (request) => tokens[bearer(request) ?? ''] } : { tenant }),
    onAudit: (record) => process.stdout.write(`${JSON.stringify(record)}\n`),
  });
  const stop = () => void served.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.stdin.once('end', stop);
  process.stdin.resume();
} else {
  const served = await serveOverStdio(roster);
  // serveOverStdio closes on the end of stdin; exit then even if something else holds the loop.
  process.stdin.on('end', () => void served.close().finally(() => process.exit(0)));
}
