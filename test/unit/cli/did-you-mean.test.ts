import { describe, expect, it } from 'vitest';
import { suggest } from '../../../src/cli/did-you-mean.js';

const COMMANDS = ['validate', 'import', 'tools', 'call', 'status'];

describe('suggest', () => {
  it('finds a command within two edits, ignoring case', () => {
    expect(suggest('valdate', COMMANDS)).toBe('validate');
    expect(suggest('tols', COMMANDS)).toBe('tools');
    expect(suggest('CALL', COMMANDS)).toBe('call');
    expect(suggest('stauts', COMMANDS)).toBe('status');
  });

  it('finds the only command a prefix starts', () => {
    expect(suggest('val', COMMANDS)).toBe('validate');
    expect(suggest('imp', COMMANDS)).toBe('import');
  });

  it('suggests nothing for a word that is far from every command', () => {
    expect(suggest('deploy', COMMANDS)).toBeUndefined();
    expect(suggest('', COMMANDS)).toBeUndefined();
    expect(suggest('x', COMMANDS)).toBeUndefined();
  });
});
