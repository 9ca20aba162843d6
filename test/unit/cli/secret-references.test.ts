/** Literal secrets turned into ${VAR} references: which values, which names, and never a name taken. */
import { describe, expect, it } from 'vitest';
import { exportLines, exportNote, referencedVariables, referencesForSecrets } from '../../../src/cli/secret-references.js';

describe('referencesForSecrets', () => {
  it('replaces secret-looking env and header values, keeps the scheme, and leaves other values and references alone', () => {
    const { section, exports } = referencesForSecrets({
      gh: { command: 'npx', env: { GITHUB_TOKEN: 'ghp_1', LOG_LEVEL: 'debug', API_KEY: '${API_KEY}' } },
      linear: { url: 'https://x/mcp', headers: { Authorization: 'Bearer lin_api_2', Accept: 'text/plain' } },
    });
    expect(section).toEqual({
      gh: { command: 'npx', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}', LOG_LEVEL: 'debug', API_KEY: '${API_KEY}' } },
      linear: { url: 'https://x/mcp', headers: { Authorization: 'Bearer ${LINEAR_AUTHORIZATION}', Accept: 'text/plain' } },
    });
    expect(exports).toEqual([
      { variable: 'GITHUB_TOKEN', value: 'ghp_1' },
      { variable: 'LINEAR_AUTHORIZATION', value: 'lin_api_2' },
    ]);
  });

  it('shares a variable between equal values, and never reuses a reserved name or one holding another value', () => {
    const { section, exports } = referencesForSecrets(
      {
        a: { command: 'x', env: { TOKEN: 't1', GITHUB_TOKEN: 'g' } },
        b: { command: 'x', env: { TOKEN: 't1' } },
        c: { command: 'x', env: { TOKEN: 't2' } },
      },
      new Set(['GITHUB_TOKEN']),
    );
    expect(section.a?.env).toEqual({ TOKEN: '${TOKEN}', GITHUB_TOKEN: '${A_GITHUB_TOKEN}' });
    expect(section.b?.env).toEqual({ TOKEN: '${TOKEN}' });
    expect(section.c?.env).toEqual({ TOKEN: '${C_TOKEN}' });
    expect(exports.map((e) => e.variable)).toEqual(['TOKEN', 'A_GITHUB_TOKEN', 'C_TOKEN']);
  });

  it('a reserved fallback name too is skipped', () => {
    const { section } = referencesForSecrets({ gh: { command: 'x', env: { TOKEN: 'v' } } }, new Set(['TOKEN', 'GH_TOKEN']));
    expect(section.gh?.env).toEqual({ TOKEN: '${GH_TOKEN_2}' });
  });
});

describe('referencedVariables', () => {
  it('names every variable the env and headers of the servers reference, defaults included', () => {
    const names = referencedVariables({
      a: { command: 'x', env: { A: '${ONE}', B: 'pre-${TWO:-x}-post', C: 'plain' } },
      b: { url: 'http://h', headers: { Authorization: 'Bearer ${THREE}', X: '$${ESCAPED} ${bad name} ${SANDBOX_ROOT}' } },
      c: 'not an entry',
    });
    // An escape, a malformed reference and the runtime's own placeholder reference nothing to set.
    expect([...names].sort()).toEqual(['ONE', 'THREE', 'TWO']);
  });
});

describe('the export lines', () => {
  it('quote a value for sh, and say nothing when there is nothing to export', () => {
    const lines = exportLines([{ variable: 'T', value: "it's" }]);
    expect(lines).toEqual([`export T='it'\\''s'`]);
    expect(exportNote(lines)).toContain(`\nexport T='it'\\''s'\n`);
    expect(exportNote([])).toBe('');
  });
});
