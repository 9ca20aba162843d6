/**
 * The configuration's schemas compile under Ajv's strict mode (no unknown keywords, no ambiguous
 * types). The package validates with the shared, non-strict instances of
 * src/registry/json-schema-validators.ts, which also compile the tool schemas of servers; the
 * authoring checks of strict mode are kept here.
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { agentsFileSchema } from '../../../src/config/agents-file-schema.js';
import { serverConfigSchema } from '../../../src/config/server-schema.js';

describe('the configuration schemas', () => {
  it.each([
    ['serverConfigSchema', serverConfigSchema],
    ['agentsFileSchema', agentsFileSchema],
  ])('%s compiles in strict mode', (_name, schema) => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats.default(ajv, ['uri']);
    expect(() => ajv.compile(schema)).not.toThrow();
  });
});
