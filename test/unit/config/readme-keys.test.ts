/**
 * The README's table of server keys says what `serverConfigSchema` says: the same keys (in the
 * TypeScript spelling, `backoff.initialMs` for nested ones) and, for each scalar default, that
 * default. A key added to the schema and not to the README fails here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverConfigSchema, toCamelKey } from '../../../src/config/index.js';

const readme = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
const section = readme.slice(readme.indexOf('### Server configuration'), readme.indexOf('#### Adding a key'));
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

describe('the README table of server keys', () => {
  it('lists every key of serverConfigSchema, and no other', () => {
    expect(rows.map(([key]) => key).sort()).toEqual(schemaKeys.map(([key]) => key).sort());
  });

  it('gives each scalar default as the schema has it', () => {
    const defaults = new Map(rows);
    for (const [key, node] of schemaKeys) {
      if (['string', 'number', 'boolean'].includes(typeof node.default)) expect(defaults.get(key), key).toContain(`\`${String(node.default)}\``);
    }
  });
});
