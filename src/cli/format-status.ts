/**
 * How `agents status` shows the runtime's server actors: name, tenant, state, pid, restarts,
 * uptime and last error.
 */
import type { ActivationReport } from '../runtime/actor-machine.js';
import type { RuntimeStatus } from '../runtime/create-runtime.js';
import { unavailableJson, unavailableLines } from './format-tools.js';
import { formatDuration, textTable } from './text-table.js';

export interface StatusReport {
  readonly actor: string;
  readonly tenant: string;
  readonly status: RuntimeStatus;
  readonly activation: ActivationReport | undefined;
}

/** True when every server the actor needs started: the check `agents status` exits 0 for. */
export function allServersUp(report: StatusReport): boolean {
  return (report.activation?.unavailable.length ?? 0) === 0 && report.status.servers.every((server) => server.state === 'RUNNING');
}

export function formatStatus(report: StatusReport): string {
  const { servers } = report.status;
  const lines = [
    `actor ${report.actor} for tenant ${report.tenant}: ${allServersUp(report) ? 'every server is running' : 'not every server is running'}`,
  ];
  if (servers.length > 0) {
    const rows = servers.map((s) => [
      s.server,
      s.tenant,
      s.state,
      s.pid === undefined ? '-' : String(s.pid),
      String(s.restarts),
      s.uptimeMs === undefined ? '-' : formatDuration(s.uptimeMs),
      s.lastError ?? '-',
    ]);
    lines.push('', textTable([['SERVER', 'TENANT', 'STATE', 'PID', 'RESTARTS', 'UPTIME', 'LAST ERROR'], ...rows]));
  } else {
    lines.push('', 'no server processes (the actor uses in-process servers only, or none)');
  }
  lines.push(...unavailableLines(report.activation));
  return `${lines.join('\n')}\n`;
}

export function statusJson(report: StatusReport): Record<string, unknown> {
  return {
    actor: report.actor,
    tenant: report.tenant,
    ok: allServersUp(report),
    servers: report.status.servers,
    unavailable: unavailableJson(report.activation),
  };
}
