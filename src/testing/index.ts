export {
  fixtureArgs,
  fixtureServerConfig,
  fixtureServerPath,
  type FixtureOptions,
  type FixtureServerConfig,
} from './fixture.js';
