// `npm run test:package`: the package as a user gets it. `npm pack` (prepack builds) → install the
// tarball into an empty folder → `npx agents --help`, `import` from .mjs, `require()` where Node can
// require ES modules, and TypeScript importing it under `nodenext` and under `bundler` resolution.
// Exits 1 with the step that failed. Run by .ci/run; slow (a build and an install), so not in npm test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'mcp-actors-pack-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
let failed = 0;
function step(name, body) {
  try {
    const detail = body();
    console.log(`ok   ${name}${detail ? ` — ${detail}` : ''}`);
  } catch (error) {
    failed += 1;
    console.log(`FAIL ${name}\n${String(error.stdout ?? '')}${String(error.stderr ?? '')}${error.message}`);
  }
}

try {
  const packed = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', work], root))[0];
  const files = packed.files.map((file) => file.path);
  step('the tarball ships dist, bin, LICENSE and README', () => {
    for (const must of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/testing/index.js',
      'dist/testing/fixture-server.mjs',
      'dist/cli/main.js',
      'bin/agents.mjs',
      'LICENSE',
      'README.md',
    ]) {
      if (!files.includes(must)) throw new Error(`${must} is not in the tarball`);
    }
    return `${files.length} files`;
  });
  const app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  run(
    npm,
    [
      'install',
      '--no-audit',
      '--no-fund',
      join(
        work,
        readdirSync(work).find((f) => f.endsWith('.tgz')),
      ),
    ],
    app,
  );

  step('npx agents --help', () => {
    const out = run('npx', ['--no-install', 'agents', '--help'], app);
    if (!/agents/.test(out) || !/demo/.test(out)) throw new Error(`unexpected help:\n${out}`);
  });
  step('import from an .mjs file', () => {
    writeFileSync(
      join(app, 'use.mjs'),
      "import { createRuntime, McpClient } from 'mcp-actors';\nimport { fixtureServerConfig } from 'mcp-actors/testing';\nconst client = new McpClient(fixtureServerConfig());\ntry { console.log((await client.callTool('echo', { message: 'packed' })).content[0].text); } finally { await client.stop(); }\nif (typeof createRuntime !== 'function') process.exit(1);\n",
    );
    const out = run(process.execPath, ['use.mjs'], app);
    if (!out.includes('packed')) throw new Error(`unexpected output: ${out}`);
  });
  step('require() from a .cjs file', () => {
    writeFileSync(
      join(app, 'use.cjs'),
      "const { createRuntime } = require('mcp-actors');\nif (typeof createRuntime !== 'function') process.exit(1);\nconsole.log('required');\n",
    );
    return run(process.execPath, ['use.cjs'], app).trim();
  });
  for (const resolution of ['nodenext', 'bundler']) {
    step(`TypeScript (${resolution}) type-checks an import`, () => {
      const module = resolution === 'nodenext' ? 'nodenext' : 'esnext';
      writeFileSync(
        join(app, `tsconfig.${resolution}.json`),
        JSON.stringify({
          compilerOptions: {
            module,
            moduleResolution: resolution,
            target: 'es2022',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: [],
          },
          files: ['use.ts'],
        }),
      );
      writeFileSync(
        join(app, 'use.ts'),
        "import { createRuntime, type RuntimeEvent } from 'mcp-actors';\nimport { fixtureServerConfig } from 'mcp-actors/testing';\nconst event: RuntimeEvent | undefined = undefined;\nexport const made: Promise<unknown> = createRuntime({ config: { servers: { f: fixtureServerConfig() } } });\nvoid event;\n",
      );
      run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', `tsconfig.${resolution}.json`], app);
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed > 0) {
  console.log(`${failed} step(s) failed`);
  process.exit(1);
}
console.log('the packed package installs and works');
