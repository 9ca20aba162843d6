import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { confineCommand, type ConfinementPlan } from '../../../../src/process/confinement/bwrap-command.js';
import { withSandbox } from '../../../../src/process/confinement/confinement-plan.js';
import { isAllowed, parseAllowEntry } from '../../../../src/process/confinement/network-proxy.js';
import { parseAgentsConfig } from '../../../../src/config/agents-file.js';
import { validateServerConfig } from '../../../../src/config/server-config.js';
import { isConfigError } from '../../../../src/errors/index.js';

const plan: ConfinementPlan = {
  bwrap: '/usr/bin/bwrap',
  writable: ['/tmp/sbx/root', '/tmp/own', '/home/me/.npm'],
  hidden: [
    { path: '/home/me/.ssh', kind: 'directory' },
    { path: '/home/me/.netrc', kind: 'file' },
  ],
  hostTmp: '/tmp',
  ownTmp: '/tmp/own',
  readable: [],
  network: { kind: 'none' },
};

describe('confineCommand', () => {
  it('runs the command under bwrap: read-only root, writable binds after the private tmp, hidden paths, no network', () => {
    const out = confineCommand('node', ['server.js', '--root', '/tmp/sbx/root'], { PATH: '/usr/bin', SECRET: 'x' }, plan);
    expect(out.command).toBe('/usr/bin/bwrap');
    const args = out.args.join(' ');
    expect(args).toContain('--die-with-parent --unshare-pid');
    expect(args).toContain('--ro-bind / /');
    expect(args.indexOf('--tmpfs /tmp ')).toBeLessThan(args.indexOf('--bind /tmp/sbx/root /tmp/sbx/root'));
    expect(args.indexOf('--bind /tmp/own /tmp/own')).toBeLessThan(args.indexOf('--remount-ro /tmp '));
    expect(args).toContain('--tmpfs /home/me/.ssh --remount-ro /home/me/.ssh');
    expect(args).toContain('--ro-bind /dev/null /home/me/.netrc');
    expect(args).toContain('--unshare-net');
    expect(out.args.slice(-5)).toEqual(['--', 'node', 'server.js', '--root', '/tmp/sbx/root']);
    expect(out.env).toMatchObject({ PATH: '/usr/bin', SECRET: 'x', TMPDIR: '/tmp/own', MCP_ACTORS_CONFINED: '1' });
  });

  it('shares the network when it is all, and bridges it for an allowlist', () => {
    expect(confineCommand('x', [], {}, { ...plan, network: { kind: 'all' } }).args).not.toContain('--unshare-net');
    const bridged = confineCommand(
      'x',
      ['a'],
      {},
      { ...plan, network: { kind: 'allowlist', socket: '/tmp/p/proxy.sock', port: 3128, node: '/n', bridge: '/b.mjs' } },
    );
    expect(bridged.args).toContain('--unshare-net');
    expect(bridged.args.join(' ')).toContain('--ro-bind /tmp/p /tmp/p');
    expect(bridged.args.slice(-7)).toEqual(['--', '/n', '/b.mjs', '/tmp/p/proxy.sock', '3128', 'x', 'a']);
    expect(bridged.env.HTTPS_PROXY).toBe('http://127.0.0.1:3128');
  });

  it('is pure: the same input gives the same output and the input is not changed', () => {
    const env = Object.freeze({ A: '1' });
    expect(confineCommand('c', ['d'], env, plan)).toEqual(confineCommand('c', ['d'], env, plan));
  });
});

describe('the network allowlist', () => {
  it('matches names, wildcards, ports and IP literals', () => {
    expect(isAllowed(['api.github.com'], 'API.github.com', 443)).toBe(true);
    expect(isAllowed(['api.github.com'], 'github.com', 443)).toBe(false);
    expect(isAllowed(['*.npmjs.org'], 'registry.npmjs.org', 443)).toBe(true);
    expect(isAllowed(['*.npmjs.org'], 'npmjs.org', 443)).toBe(false);
    expect(isAllowed(['127.0.0.1:8080'], '127.0.0.1', 8080)).toBe(true);
    expect(isAllowed(['127.0.0.1:8080'], '127.0.0.1', 8081)).toBe(false);
    expect(isAllowed(['[::1]:8080'], '::1', 8080)).toBe(true);
    expect(parseAllowEntry('example.com:443')).toEqual({ host: 'example.com', wildcard: false, port: 443 });
  });

  it('an entry host:port allows that port and no other (property)', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 1, max: 65535 }), (host, port, other) => {
        expect(isAllowed([`${host}:${port}`], host, port)).toBe(true);
        expect(isAllowed([`${host}:${port}`], host, other)).toBe(other === port);
        expect(isAllowed([], host, port)).toBe(false);
      }),
    );
  });
});

describe('the confine setting', () => {
  it('is accepted as true, false or options, in McpServerConfig and agents.yaml', () => {
    expect(validateServerConfig({ name: 'a', command: 'x', confine: true }).confine).toBe(true);
    expect(validateServerConfig({ name: 'a', command: 'x' }).confine).toBeUndefined();
    const options = { network: ['api.github.com', '127.0.0.1:8080'], deny: ['~/secrets'], write: ['~/.cache/x'] };
    expect(validateServerConfig({ name: 'a', command: 'x', confine: options }).confine).toEqual(options);
    const file = parseAgentsConfig('servers:\n  files:\n    command: npx\n    confine:\n      network: none\n      deny: [~/secrets]\n');
    expect(file.servers.files?.confine).toEqual({ network: 'none', deny: ['~/secrets'] });
  });

  it('refuses what it does not know', () => {
    for (const confine of ['yes', { network: 'some' }, { netwrok: 'none' }, { deny: '~/x' }]) {
      let error: unknown;
      try {
        validateServerConfig({ name: 'a', command: 'x', confine });
      } catch (caught) {
        error = caught;
      }
      expect(isConfigError(error), JSON.stringify(confine)).toBe(true);
    }
  });

  it('withSandbox: absent means confine where available; true and options keep failing hard; false stays false', () => {
    expect(withSandbox(undefined, '/r', '/p')).toEqual({ root: '/r', project: '/p', fallback: true });
    expect(withSandbox(true, '/r', '/p')).toEqual({ root: '/r', project: '/p' });
    expect(withSandbox({ network: 'none' }, '/r', undefined)).toEqual({ network: 'none', root: '/r' });
    expect(withSandbox(false, '/r', '/p')).toBe(false);
    expect(withSandbox(undefined, undefined, undefined)).toBeUndefined();
  });
});

describe('what stays readable under the host temp dir', () => {
  it('is the whole package around a script there (its node_modules and build), not only the script folder', async () => {
    const { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { planConfinement } = await import('../../../../src/process/confinement/confinement-plan.js');
    const pkg = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-clone-')));
    const sandboxRoot = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-sbx-')));
    try {
      mkdirSync(join(pkg, 'test', 'support'), { recursive: true });
      mkdirSync(join(pkg, 'node_modules'));
      writeFileSync(join(pkg, 'package.json'), '{}');
      writeFileSync(join(pkg, 'test', 'support', 'server.mjs'), '');
      const prepared = planConfinement(
        {
          serverName: 's',
          setting: { root: sandboxRoot },
          env: { HOME: '/nonexistent-home' },
          command: process.execPath,
          args: [join(pkg, 'test', 'support', 'server.mjs')],
        },
        '/usr/bin/bwrap',
      );
      try {
        expect(prepared.plan.readable).toContain(pkg);
        expect(prepared.plan.readable).not.toContain(sandboxRoot); // writable, not merely readable
        expect(prepared.plan.writable).toContain(sandboxRoot);
      } finally {
        prepared.dispose();
      }
    } finally {
      rmSync(pkg, { recursive: true, force: true });
      rmSync(sandboxRoot, { recursive: true, force: true });
    }
  });

  it('hides a denied path under the host temp dir only where the box shows it (else bubblewrap cannot mount over it)', async () => {
    const { mkdirSync, mkdtempSync, realpathSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { planConfinement } = await import('../../../../src/process/confinement/confinement-plan.js');
    const sandboxRoot = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-sbx-')));
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-elsewhere-')));
    try {
      mkdirSync(join(sandboxRoot, 'private'));
      const deny = [join(elsewhere), join(sandboxRoot, 'private')];
      const prepared = planConfinement(
        { serverName: 's', setting: { root: sandboxRoot, deny }, env: { HOME: '/nonexistent-home' }, command: process.execPath },
        '/usr/bin/bwrap',
      );
      try {
        const hidden = prepared.plan.hidden.map((entry) => entry.path);
        expect(hidden).toContain(join(sandboxRoot, 'private'));
        expect(hidden).not.toContain(elsewhere);
      } finally {
        prepared.dispose();
      }
    } finally {
      rmSync(sandboxRoot, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
