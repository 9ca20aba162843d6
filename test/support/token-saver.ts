/**
 * A real process saving into one `FileTokenStore` (the compiled one in dist/, as the `agents` CLI
 * runs it): for the tests of two processes saving at once, and of links planted beside the file.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './agents-cli.js';

const storeModule = pathToFileURL(join(repoRoot, 'dist/auth/token-store.js')).href;

/**
 * A process that waits for a line on stdin, then saves `count` entries named `<prefix><i>` one
 * after the other (as an OAuth login saves tokens), and exits 0.
 */
export function saver(
  file: string,
  prefix: string,
  count: number,
): { pid: number; go(): void; exited: Promise<{ code: number | null; stderr: string }> } {
  const script = `
    import { FileTokenStore } from ${JSON.stringify(storeModule)};
    process.stdin.once('data', async () => {
      const store = new FileTokenStore(${JSON.stringify(file)});
      for (let i = 0; i < ${count}; i += 1) await store.save(${JSON.stringify(prefix)} + i, { tokens: { access_token: 'at-' + i, token_type: 'Bearer' }, tokensSavedAt: i });
      process.exit(0);
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    pid: child.pid ?? -1,
    go: () => child.stdin.write('go\n'),
    exited: new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr }))),
  };
}

/** The keys `<prefix>0..count-1` of each prefix that `file` does not hold. */
export function missingKeys(file: string, prefixes: readonly string[], count: number): string[] {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return prefixes.flatMap((prefix) => Array.from({ length: count }, (_, i) => `${prefix}${i}`)).filter((key) => saved[key] === undefined);
}
