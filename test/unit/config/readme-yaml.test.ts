/**
 * Every `yaml` block of the README is an agents.yaml that `agents validate` accepts as printed:
 * placed in examples/ (where the Agent Skill folder it names lives), unset variables as warnings.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkAgentsFile } from '../../../src/config/agents-file.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const blocks = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
const written: string[] = [];
afterEach(() => {
  for (const file of written.splice(0)) rmSync(file, { force: true });
});

describe('the README', () => {
  it('has yaml blocks to check', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it.each(blocks.map((text, index) => [index, text] as const))('yaml block %i validates as printed', async (index, text) => {
    const file = join(root, 'examples', `.readme-block-${index}-${process.pid}.yaml`);
    written.push(file);
    writeFileSync(file, text);
    const { warnings } = await checkAgentsFile(file, { env: { PATH: process.env.PATH }, unsetVariables: 'warn', checkCommands: true });
    // Only the variables the reader is expected to set are left to warn about.
    for (const warning of warnings) expect(warning.problem).toMatch(/is not set in the environment/);
  });
});
