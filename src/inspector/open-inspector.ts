/**
 * The one step behind `createRuntime({ inspect: true | { port } })`: start the runtime's inspector
 * server, say where it is (once), and open a browser only when asked and a person is there to see
 * it (a TTY, and not under CI).
 */
import { spawn } from 'node:child_process';
import type { InspectionEvent, Observer } from 'xstate';
import type { Redactor } from '../redaction/redactor.js';
import type { InspectorLimits } from './inspector-limits.js';
import { InspectorServer } from './inspector-server.js';

/** `inspect: { ... }` of `createRuntime`. */
export interface InspectOptions {
  /** The port on 127.0.0.1 (default 8080; when taken, a free one; 0 always picks a free one). */
  readonly port?: number;
  /** Where the URL line goes: false for nowhere, a function for your own log (default stderr). */
  readonly print?: boolean | ((line: string) => void);
  /** Open the URL in a browser (default false); never under CI or without a TTY. */
  readonly open?: boolean;
  /**
   * Let the Stately inspector (stately.ai, a third-party page the `/stately` bridge feeds) see the
   * content of tool results (default false: withheld from it; the runtime's own page shows them).
   */
  readonly shareToolResults?: boolean;
  /** Bounds on connections and bytes (see `InspectorLimits`). */
  readonly limits?: Partial<InspectorLimits>;
}

/** What `createRuntime` accepts as `inspect`: the built-in server, or any XState observer. */
export type InspectSetting = boolean | InspectOptions | Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** Whether `inspect` is an XState observer of the host's own (rather than a request for the built-in server). */
export function isInspectionObserver(
  inspect: InspectSetting | null | undefined,
): inspect is Observer<InspectionEvent> | ((event: InspectionEvent) => void) {
  if (typeof inspect === 'function') return true;
  if (typeof inspect !== 'object' || inspect === null) return false;
  const candidate = inspect as Record<string, unknown>;
  return typeof candidate.next === 'function' || typeof candidate.error === 'function' || typeof candidate.complete === 'function';
}

/** The built-in server's options for `inspect`, or undefined when it asks for none. */
export function inspectServerOptions(inspect: InspectSetting | undefined): InspectOptions | undefined {
  if (inspect === true) return {};
  if (inspect === false || inspect === undefined || isInspectionObserver(inspect)) return undefined;
  return inspect;
}

/** The line printed once the server listens: the URL a browser opens to see the tree, and the Stately bridge's. */
export function inspectorLine(server: InspectorServer): string {
  return `Inspector: ${server.url} (the Stately inspector: ${server.url}/stately)`;
}

function mayOpenBrowser(): boolean {
  // undefined when stdout is a pipe or a file, whatever the types say
  return (process.stdout.isTTY as boolean | undefined) === true && !process.env.CI;
}

function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No browser to open: the printed URL is enough.
  }
}

export async function openInspector(options: InspectOptions, redactor: Redactor): Promise<InspectorServer> {
  const server = await InspectorServer.start({
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
    ...(options.shareToolResults !== undefined ? { shareToolResults: options.shareToolResults } : {}),
    redactor,
  });
  const line = inspectorLine(server);
  if (typeof options.print === 'function') options.print(line);
  else if (options.print !== false) process.stderr.write(`${line}\n`);
  if (options.open === true && mayOpenBrowser()) openBrowser(server.url);
  return server;
}
