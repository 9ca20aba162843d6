/**
 * What lets a sandbox outlive a crashed host: a manifest (`sandbox.json`) in the sandbox's own
 * directory with its layout, its baseline and the pid of the host using it. A later host reopens
 * the sandbox by its id (the directory's suffix, `mcp-actors-sandbox-<id>`), with its checkpoints
 * (kept in `<dir>/checkpoints`), and lists those whose host is gone.
 */
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../process/process-table.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { Layout } from './sandbox-layout.js';

export const SANDBOX_DIR_PREFIX = 'mcp-actors-sandbox-';
const MANIFEST = 'sandbox.json';
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface SandboxManifest {
  readonly version: 1;
  readonly id: string;
  /** The host process using the sandbox. */
  readonly pid: number;
  readonly createdAt: number;
  readonly layout: Layout;
  readonly baseline: string;
}

/** A sandbox a host left behind (its host is no longer running). */
export interface LeftSandbox {
  readonly id: string;
  readonly projectDir: string;
  readonly root: string;
  readonly kind: Layout['kind'];
  readonly createdAt: number;
  /** The host that used it, now gone. */
  readonly pid: number;
}

export function checkSandboxId(id: string): string {
  if (!ID.test(id)) {
    throw new McpActorsError(
      ErrorCode.SANDBOX_FAILED,
      `sandbox id ${JSON.stringify(id)} is not valid: use 1-64 letters, digits, "-" or "_"`,
      {
        details: { id },
      },
    );
  }
  return id;
}

export function sandboxDirOf(base: string, id: string): string {
  return join(base, `${SANDBOX_DIR_PREFIX}${checkSandboxId(id)}`);
}

export function checkpointsDirOf(sandboxDir: string): string {
  return join(sandboxDir, 'checkpoints');
}

export async function readSandboxManifest(sandboxDir: string): Promise<SandboxManifest | undefined> {
  try {
    const manifest: unknown = JSON.parse(await readFile(join(sandboxDir, MANIFEST), 'utf8'));
    return isSandboxManifest(manifest) ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/** A manifest as this version writes it (one of another version, or broken, is not reopened). */
function isSandboxManifest(value: unknown): value is SandboxManifest {
  if (typeof value !== 'object' || value === null) return false;
  const { version, baseline, layout } = value as { version?: unknown; baseline?: unknown; layout?: unknown };
  return (
    version === 1 &&
    typeof baseline === 'string' &&
    typeof layout === 'object' &&
    layout !== null &&
    typeof (layout as { root?: unknown }).root === 'string'
  );
}

/** Written whole and renamed into place, so a crash never leaves half a manifest. */
export async function writeSandboxManifest(manifest: SandboxManifest): Promise<void> {
  const file = join(manifest.layout.tempDir, MANIFEST);
  await writeFile(`${file}.tmp`, JSON.stringify(manifest));
  await rename(`${file}.tmp`, file);
}

/** Whether a manifest's host is another process that is still running. */
export function inUseElsewhere(manifest: SandboxManifest): boolean {
  return manifest.pid !== process.pid && isProcessAlive(manifest.pid);
}

/**
 * The sandboxes under `base` (default the OS temp dir) whose host is gone, oldest first.
 *
 * @example
 * for (const left of await leftBehindSandboxes()) console.log(left.id, left.projectDir);
 */
export async function leftBehindSandboxes(base: string = tmpdir()): Promise<LeftSandbox[]> {
  let names: string[];
  try {
    names = await readdir(base);
  } catch {
    return [];
  }
  const found: LeftSandbox[] = [];
  for (const name of names) {
    if (!name.startsWith(SANDBOX_DIR_PREFIX)) continue;
    const manifest = await readSandboxManifest(join(base, name));
    if (!manifest || manifest.pid === process.pid || isProcessAlive(manifest.pid)) continue;
    const { layout } = manifest;
    found.push({
      id: manifest.id,
      projectDir: layout.logicalRoot,
      root: layout.root,
      kind: layout.kind,
      createdAt: manifest.createdAt,
      pid: manifest.pid,
    });
  }
  return found.sort((a, b) => a.createdAt - b.createdAt);
}
