/** The example tests of `mcp-actors/testing` in docs/testing-kit.md, as written there (its regions are the doc's blocks; imports from src/). */
import { expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { fixtureServerConfig, inProcessFixture, spawnedProcesses, waitForServerState } from '../../src/testing/index.js';

// #region crash
it('survives a server that crashes on its second call', async () => {
  const client = new McpClient(fixtureServerConfig({ name: 'flaky', crashAfter: 1 }));
  expect((await client.callTool('echo', { message: 'one' })).content).toEqual([{ type: 'text', text: 'one' }]);
  await expect(client.callTool('echo', { message: 'two' })).rejects.toMatchObject({ code: 'CONNECTION_LOST' });
  await waitForServerState(client, 'RUNNING', 10_000); // restarted at once
  expect(client.status().lastError?.code).toBe('SERVER_CRASHED');
  await client.stop();
  expect(spawnedProcesses().groups).toEqual([]);
});
// #endregion crash

// #region in-process
it('restarts an in-process server whose transport fails', async () => {
  const fixture = inProcessFixture({ crashAfter: 1 });
  const client = fixture.client({ name: 'flaky' });
  await client.callTool('echo', { message: 'one' });
  await expect(client.callTool('echo', { message: 'two' })).rejects.toMatchObject({ code: 'CONNECTION_LOST' });
  await waitForServerState(client, 'RUNNING', 5_000);
  expect(fixture.started).toBe(2);
  await client.dispose();
  expect(fixture.running).toBe(0);
});
// #endregion in-process
