/**
 * The `confine:` key of a server: OS confinement of a stdio server to its sandbox (bubblewrap on
 * Linux; see `src/process/confinement/`). Absent: a server that runs in a sandbox is confined
 * wherever a probe run of bubblewrap succeeds. README "Confinement" shows the forms.
 */

import type { ValueOf } from './file-keys.js';

const pathList = (description: string) => ({ type: 'array', items: { type: 'string', minLength: 1 }, description }) as const;

/** camelCase and snake_case are the same here: every key is one word. */
export const confineSchema = {
  description:
    'OS confinement (bubblewrap): true, false, or options. Default: confined when the server runs in a sandbox and bubblewrap works.',
  oneOf: [
    { type: 'boolean' },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        network: {
          description: 'all (default), none, or a list of hosts reachable through a proxy (name, *.name, name:port).',
          oneOf: [
            { type: 'string', enum: ['all', 'none'] },
            { type: 'array', items: { type: 'string', minLength: 1, pattern: '^[^\\s/]+$' } },
          ],
        },
        deny: pathList('Paths the server cannot read, on top of the default credential folders.'),
        write: pathList('Paths the server may write, on top of the sandbox root, its temp dir and the package caches.'),
        root: { type: 'string', minLength: 1, description: 'The directory the server may write; the runtime sets it to the sandbox root.' },
        project: {
          type: 'string',
          minLength: 1,
          description: 'The project a sandbox stands for (its .env files are hidden); set by the runtime.',
        },
        fallback: { type: 'boolean', description: 'Run unconfined where confinement is unavailable, rather than fail to start.' },
      },
    },
  ],
} as const;

/** `true`: confine (fail to start if this machine cannot); `false`: never; an object: confine, so. */
export type ConfineSetting = ValueOf<typeof confineSchema, false>;
export type ConfineOptions = Exclude<ConfineSetting, boolean>;
/** `all` (default), `none`, or the hosts (`name`, `*.name`, `name:port`, `127.0.0.1:8080`) reachable through a proxy. */
export type ConfineNetwork = NonNullable<ConfineOptions['network']>;
