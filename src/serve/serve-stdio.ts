/**
 * The transport swap of ADR-004-F: the same `DomainServer` that runs in-process served as a real
 * MCP server over stdio (or any transport given). One process serves one tenant (AI-04): the
 * tenant is fixed when the process starts — `options.tenant`, or the `MCP_ACTORS_TENANT`
 * environment variable the runtime fills from `${TENANT}` — and never taken from a message.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Subject, type Observable } from 'rxjs';
import { ErrorCode, McpActorsError } from '../errors/index.js';
import type { DomainServer } from '../domain/define-server.js';
import { createSessionServer, servableDomain, type ServeCommonOptions } from './domain-mcp-server.js';
import type { ServedAuditRecord } from './served-access.js';

export { toCallToolResult } from './domain-mcp-server.js';

/** The environment variable that names the tenant of a stdio-served process. */
export const TENANT_ENV = 'MCP_ACTORS_TENANT';
/** The environment variable with the process's scopes, separated by spaces or commas. */
export const SCOPES_ENV = 'MCP_ACTORS_SCOPES';

export interface ServeOptions extends ServeCommonOptions {
  /** The tenant this process serves; default `process.env.MCP_ACTORS_TENANT`. One of the two is required. */
  readonly tenant?: string;
  /** The scopes of this process (e.g. `tool:roster_purge`); default from `MCP_ACTORS_SCOPES`, else none. */
  readonly scopes?: readonly string[];
  /** Who the calls are made for, as `ctx.actor`. */
  readonly actor?: string;
  /** Default: a `StdioServerTransport` on this process's stdin and stdout. */
  readonly transport?: Transport;
  /** Where the startup line goes; default stderr (stdout is the protocol). `false` for none. */
  readonly announce?: ((line: string) => void) | false;
}

export interface ServedDomainServer {
  /** The tenant every call of this server runs for. */
  readonly tenant: string;
  /** Every call's audit record, as it happens. */
  readonly audit$: Observable<ServedAuditRecord>;
  /** Closes the connection; calling it again does nothing more. */
  close(): Promise<void>;
}

/**
 * Serves `server` as an MCP server for one tenant. `tools/list` announces each tool's category in
 * its annotations and in `_meta: { category, domain }`; `tools/call` runs for the process's tenant,
 * denies a `_meta` tenant that disagrees (TENANT_MISMATCH), a `restricted` tool without the scope
 * `tool:<name>` and an `execute` tool the policy refuses (PERMISSION_DENIED). Resolves once
 * connected; over stdio, the end of stdin closes the server (the MCP stdio convention).
 *
 * @example
 * // roster-server.mjs; in agents.yaml: env: { MCP_ACTORS_TENANT: "${TENANT}" }
 * import { serveOverStdio } from 'mcp-actors';
 * import { roster } from './roster.js';
 * await serveOverStdio(roster);
 */
export async function serveOverStdio(server: DomainServer, options: ServeOptions = {}): Promise<ServedDomainServer> {
  const tenant = options.tenant ?? process.env[TENANT_ENV];
  if (typeof tenant !== 'string' || tenant === '') {
    // A JavaScript caller can leave the server out.
    const given = server as Partial<DomainServer> | undefined;
    throw new McpActorsError(
      ErrorCode.INVALID_ARGUMENT,
      `serveOverStdio("${String(given?.name)}") needs the tenant this process serves: pass { tenant } or set ${TENANT_ENV} ` +
        `(in agents.yaml: env: { ${TENANT_ENV}: "\${TENANT}" }); one process serves one tenant, never one named in a message`,
      { details: { env: TENANT_ENV } },
    );
  }
  const scopes = options.scopes ?? (process.env[SCOPES_ENV] ?? '').split(/[\s,]+/).filter((scope) => scope !== '');
  const domain = servableDomain(server, options);
  const audit = new Subject<ServedAuditRecord>();
  const onAudit = options.onAudit;
  const mcp = createSessionServer(domain, {
    session: { tenant, scopes: Object.freeze([...scopes]), ...(options.actor === undefined ? {} : { actor: options.actor }) },
    policy: options.policy ?? {},
    transport: 'stdio',
    audit: (record) => {
      try {
        onAudit?.(record);
      } finally {
        audit.next(record);
      }
    },
  });

  const transport = options.transport ?? new StdioServerTransport();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (options.transport === undefined) process.stdin.off('end', onStdinEnd);
      await mcp.close();
      audit.complete();
    })();
    return closing;
  };
  const onStdinEnd = (): void => void close();
  if (options.transport === undefined) process.stdin.once('end', onStdinEnd);
  await mcp.connect(transport);
  const announce = options.announce ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (announce !== false) {
    announce(
      `${server.name}: serving ${domain.byName.size} tools over ${options.transport === undefined ? 'stdio' : 'a transport'} for tenant "${tenant}" (one tenant per process)`,
    );
  }
  return { tenant, audit$: audit.asObservable(), close };
}
