/**
 * A leaked grandchild, as a launcher (npx, uvx, a shell) would leave behind: spawned by
 * `fixture-server.mjs --fork-grandchild` in the server's process group, holding the server's stdout
 * open. It never exits by itself, not even when its parent dies; only a signal ends it.
 */
setInterval(() => {}, 1 << 30);
