/**
 * How `agents tools` shows an actor's tool set: each tool's full name, permission category,
 * capabilities and why it is (or is not) read-only, then the servers that did not start.
 */
import type { ActivationReport } from '../runtime/actor-machine.js';
import type { ToolCapability } from '../registry/capabilities.js';
import type { ActorTool } from '../runtime/actor-handle.js';
import { textTable } from './text-table.js';

export interface ToolsReport {
  readonly actor: string;
  readonly tenant: string;
  readonly tools: readonly ActorTool[];
  readonly activation: ActivationReport | undefined;
}

/** `read-only`, `writes`, or `writes, destructive`. */
export function capabilitiesText(capability: ToolCapability): string {
  if (capability.readOnly) return 'read-only';
  return capability.destructive ? 'writes, destructive' : 'writes';
}

/** Which source decided `readOnly`, in words: `name: word "list" in name`. */
export function readOnlyReason(tool: ActorTool): string {
  const { source, detail } = tool.provenance.readOnly;
  return `${source}: ${detail}`;
}

export function formatTools(report: ToolsReport): string {
  const { actor, tenant, tools, activation } = report;
  const servers = activation?.servers ?? [];
  const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
  const lines = [`actor ${actor} for tenant ${tenant}: ${count}${servers.length > 0 ? ` from ${servers.join(', ')}` : ''}`];
  if (tools.length > 0) {
    const rows = tools.map((tool) => [
      tool.name,
      tool.category,
      capabilitiesText(tool.capabilities),
      tool.unusable === undefined ? readOnlyReason(tool) : `unusable: ${tool.unusable}`,
    ]);
    lines.push('', textTable([['TOOL', 'CATEGORY', 'CAPABILITIES', 'READ-ONLY DECIDED BY'], ...rows]));
  }
  lines.push(...unavailableLines(activation));
  return `${lines.join('\n')}\n`;
}

/** The servers whose tools are missing because they did not start. */
export function unavailableLines(activation: ActivationReport | undefined): string[] {
  const unavailable = activation?.unavailable ?? [];
  if (unavailable.length === 0) return [];
  return [
    '',
    'unavailable (their tools join once the server recovers):',
    ...unavailable.map(({ server, error }) => `  ${server}: [${error.code}] ${error.message}`),
  ];
}

export function toolsJson(report: ToolsReport): Record<string, unknown> {
  return {
    actor: report.actor,
    tenant: report.tenant,
    servers: report.activation?.servers ?? [],
    tools: report.tools.map((tool) => ({
      name: tool.name,
      category: tool.category,
      description: tool.description,
      capabilities: tool.capabilities,
      provenance: tool.provenance,
      checkpointable: tool.checkpointable,
      ...(tool.unusable === undefined ? {} : { unusable: tool.unusable }),
    })),
    unavailable: unavailableJson(report.activation),
  };
}

export function unavailableJson(activation: ActivationReport | undefined): { server: string; code: string; message: string }[] {
  return (activation?.unavailable ?? []).map(({ server, error }) => ({ server, code: error.code, message: error.message }));
}
