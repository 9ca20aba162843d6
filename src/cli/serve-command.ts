/**
 * `agents serve <module>[#export] [stdio|http|http://host:port/path] [--tenant t]`: serves a
 * domain server module (a `defineServer` result) as a real MCP server — the transport swap of
 * ADR-004-F from the command line. Runs until a signal (or, over stdio, the end of stdin).
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DomainServer } from '../domain/define-server.js';
import { serveOverHttp } from '../serve/serve-http.js';
import { TENANT_ENV, serveOverStdio } from '../serve/serve-stdio.js';
import { ExitCode } from './cli-io.js';
import type { CommandContext } from './command-context.js';
import { UsageError } from './usage-error.js';

export async function serveCommand(context: CommandContext): Promise<number> {
  const [target = '', transport = 'stdio'] = context.positionals;
  const hash = target.lastIndexOf('#');
  const path = hash > 0 ? target.slice(0, hash) : target;
  const exportName = hash > 0 ? target.slice(hash + 1) : undefined;
  const endpoint = endpointOf(transport);
  const server = await domainServerOf(resolveModule(context.io.cwd, path), exportName);
  const tenant = context.flags.tenant;
  const stderr = (line: string): void => void context.io.stderr.write(`${line}\n`);

  let close: () => Promise<void>;
  let ended: Promise<void> | undefined;
  if (endpoint === 'stdio') {
    const env = context.io.env[TENANT_ENV];
    const servedTenant = tenant ?? (env === '' ? undefined : env);
    if (servedTenant === undefined) {
      throw new UsageError(`agents serve over stdio needs the tenant: --tenant <tenant>, or ${TENANT_ENV} in the environment`);
    }
    const served = await serveOverStdio(server, { tenant: servedTenant, announce: stderr });
    close = () => served.close();
    ended = new Promise((done) => process.stdin.once('end', () => done()));
  } else {
    if (tenant === undefined)
      throw new UsageError(
        'agents serve over http needs --tenant <tenant> (single-tenant mode); embed serveOverHttp with authenticate to serve several tenants',
      );
    const served = await serveOverHttp(server, { tenant, announce: stderr, ...endpoint });
    close = () => served.close();
  }
  // A signal is how a server is meant to stop: it closes gracefully and exits 0.
  await new Promise<void>((done) => {
    const off = context.io.onSignal(() => {
      off();
      done();
    });
    void ended?.then(() => {
      off();
      done();
    });
  });
  await close();
  return ExitCode.OK;
}

function endpointOf(transport: string): 'stdio' | { host?: string; port?: number; path?: string } {
  if (transport === 'stdio') return 'stdio';
  if (transport === 'http') return {};
  let url: URL;
  try {
    url = new URL(transport);
  } catch {
    throw new UsageError(`unknown transport "${transport}"; write stdio, http, or http://<host>:<port>[/path]`);
  }
  if (url.protocol !== 'http:')
    throw new UsageError(`agents serve speaks plain http on a local address, not ${url.protocol}; put TLS in front of it`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, ...(url.port === '' ? {} : { port: Number(url.port) }), ...(url.pathname === '/' ? {} : { path: url.pathname }) };
}

function resolveModule(cwd: string, path: string): string {
  if (path === '') throw new UsageError('agents serve needs a module: agents serve ./roster.mjs');
  return pathToFileURL(isAbsolute(path) ? path : resolve(cwd, path)).href;
}

function isDomainServer(value: unknown): value is DomainServer {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as DomainServer).name === 'string' &&
    Array.isArray((value as DomainServer).tools)
  );
}

async function domainServerOf(url: string, exportName: string | undefined): Promise<DomainServer> {
  const module = (await import(url)) as Record<string, unknown>;
  if (exportName !== undefined) {
    const chosen = module[exportName];
    if (!isDomainServer(chosen))
      throw new UsageError(`the export "${exportName}" of ${url} is not a domain server (a defineServer() result)`);
    return chosen;
  }
  const found = Object.entries(module).filter((entry): entry is [string, DomainServer] => isDomainServer(entry[1]));
  const [first] = found;
  if (found.length === 1 && first !== undefined) return first[1];
  if (found.length === 0) throw new UsageError(`${url} exports no domain server (a defineServer() result)`);
  throw new UsageError(
    `${url} exports ${found.length} domain servers (${found.map(([name]) => name).join(', ')}); pick one with <module>#<name>`,
  );
}
