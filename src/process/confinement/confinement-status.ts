/**
 * What `status()` says about a server's confinement: whether it runs confined and, when not, why
 * (so an operator sees at a glance which servers run unconfined).
 */
import type { ResolvedServerConfig } from '../../config/server-config.js';
import { serverEnvironment } from '../server-environment.js';
import { confineOptionsOf } from './confine-options.js';
import { probeConfinement } from './probe.js';

export type ConfinementState =
  /** Runs inside bubblewrap. */
  | 'confined'
  /** `confine: false`. */
  | 'opted-out'
  /** Not in a sandbox and not asked for. */
  | 'no-sandbox'
  /** In a sandbox, but this machine cannot confine (the probe failed): runs unconfined. */
  | 'unavailable'
  /** Asked for (`confine: true`) and unavailable: the server fails to start. */
  | 'required-unavailable'
  /** An HTTP server: not a process of ours. */
  | 'remote';

export interface ConfinementStatus {
  readonly confined: boolean;
  readonly state: ConfinementState;
  /** Why confinement is unavailable, when it is. */
  readonly reason?: string;
}

/**
 * @example
 * confinementStatus(client.config); // { confined: true, state: 'confined' }
 */
export function confinementStatus(config: ResolvedServerConfig): ConfinementStatus {
  if (config.transport !== 'stdio') return { confined: false, state: 'remote' };
  const setting = config.confine;
  if (setting === false) return { confined: false, state: 'opted-out' };
  if (setting === undefined) return { confined: false, state: 'no-sandbox' };
  const probe = probeConfinement(serverEnvironment(config.env).PATH);
  if (probe.available) return { confined: true, state: 'confined' };
  return { confined: false, state: confineOptionsOf(setting).fallback ? 'unavailable' : 'required-unavailable', reason: probe.reason };
}
