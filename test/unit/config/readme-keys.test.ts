/**
 * The table of server keys in docs/configuration.md says what `serverConfigSchema` says: the same keys (in the
 * TypeScript spelling, `backoff.initialMs` for nested ones) and, for each scalar default, that
 * default. A key added to the schema and not to that page fails here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverConfigSchema, toCamelKey } from '../../../src/config/index.js';

const page = readFileSync(fileURLToPath(new URL('../../../docs/configuration.md', import.meta.url)), 'utf8');
const start = page.indexOf('## Server keys');
const section = page.slice(start, page.indexOf('\n## ', start + 1) === -1 ? undefined : page.indexOf('\n## ', start + 1));
/** `| \`a\`, \`b\` | default | meaning |` rows of the table: each key with the row's default column. */
const rows = [...section.matchAll(/^\| ((?:`[^`]+`(?:, )?)+) \| ([^|]*) \|/gm)].flatMap(([, keys = '', fallback = '']) =>
  [...keys.matchAll(/`([^`]+)`/g)].map(([, key = '']) => [key, fallback] as const),
);
type Node = { default?: unknown; properties?: Record<string, Node> };
const schemaKeys = Object.entries(serverConfigSchema.properties as Record<string, Node>).flatMap(([key, node]) =>
  node.properties
    ? Object.entries(node.properties).map(([inner, child]) => [`${toCamelKey(key)}.${toCamelKey(inner)}`, child] as const)
    : [[toCamelKey(key), node] as const],
);

describe('the table of server keys in docs/configuration.md', () => {
  it('lists every key of serverConfigSchema, and no other', () => {
    expect(rows.map(([key]) => key).sort()).toEqual(schemaKeys.map(([key]) => key).sort());
  });

  it('gives each scalar default as the schema has it', () => {
    const defaults = new Map(rows);
    for (const [key, node] of schemaKeys) {
      if (['string', 'number', 'boolean'].includes(typeof node.default))
        expect(defaults.get(key), key).toContain(`\`${String(node.default)}\``);
    }
  });
});
