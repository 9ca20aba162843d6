export { fixtureArgs, fixtureServerConfig, fixtureServerPath, type FixtureOptions, type FixtureServerConfig } from './fixture.js';
export { referenceServerConfig, referenceServerPath, type ReferenceServer } from './reference-servers.js';
export { faultyTransport, seededRandom, type FaultMode, type FaultPlan, type FaultyTransport } from './faulty-transport.js';
export { fakeServerClock, waitForServerState, type FakeServerClock } from './server-helpers.js';
export { descendantsOf, listenerCount, openHandles, spawnedProcesses, type SpawnedProcesses } from './processes.js';
export { inProcessFixture, type InProcessFixture, type InProcessFixtureOptions } from './in-process-fixture.js';
export { linkedTransports, type LinkedEnd } from './linked-transports.js';
export { connectOverTransport, type TransportFactory } from '../server/transport-connect.js';
export { retainedHeap, type RetainedHeap } from './heap.js';
