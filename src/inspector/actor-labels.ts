/**
 * The names a person reads in the inspector: every actor of the supervision tree is labelled by
 * its role and identity. They are the actors' XState `id`s (which the inspector shows as their
 * names); `systemId`s stay unique keys (`actor:<name>:<tenant>:<n>`, `call:<callId>`).
 */

/** The root of the tree. */
export const RUNTIME_LABEL = 'runtime';

/** `actor:triager:acme` */
export function actorLabel(actor: string, tenant: string): string {
  return `actor:${actor}:${tenant}`;
}

/** `server:files:acme`, or `server:files:acme:<sandbox>` for a server started for a sandbox. */
export function serverLabel(server: string, tenant: string, sandboxId: string | undefined): string {
  return `server:${server}:${tenant}${sandboxId ? `:${sandboxId}` : ''}`;
}

/** `call:triager:acme#3 files/write_file`: the actor, the call's number within it, and the tool. */
export function callLabel(actor: string, tenant: string, sequence: number, tool: string): string {
  return `call:${actor}:${tenant}#${sequence} ${tool}`;
}
