export * from './errors/index.js';
export * from './config/server-config.js';
export { ServerState } from './machines/server-states.js';
