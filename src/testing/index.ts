export {
  fixtureArgs,
  fixtureServerConfig,
  fixtureServerPath,
  type FixtureOptions,
  type FixtureServerConfig,
} from './fixture.js';
export { referenceServerConfig, referenceServerPath, type ReferenceServer } from './reference-servers.js';
