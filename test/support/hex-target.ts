/**
 * A link target for the confine probe server's `create_link` and `write_through_link`, hex-encoded
 * (`hex:<hex>`) so the path rewriter does not refuse it: it refuses any path outside the project,
 * whatever the key, and these tests need a server that makes an escaping link anyway (as a hostile
 * server that knows the path itself would) to see the escape caught after the call.
 */
export function hex(target: string): string {
  return `hex:${Buffer.from(target, 'utf8').toString('hex')}`;
}
