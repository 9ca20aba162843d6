// Runs first inside a confined server's sandbox when its network is an allowlist: the sandbox has
// no network but its own loopback, so this relays 127.0.0.1:<port> to the host's allowlist proxy
// (a unix socket bound into the sandbox), then runs the server with the same stdio and exits with
// its status. Plain JavaScript: it is spawned as a process (Node 20 cannot run TypeScript).
//
// usage: node confine-bridge.mjs <socket> <port> <command> [args...]
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const [socket, portText, command, ...args] = process.argv.slice(2);
if (!socket || !portText || !command) {
  process.stderr.write('usage: confine-bridge.mjs <socket> <port> <command> [args...]\n');
  process.exit(2);
}

const relay = createServer((client) => {
  const upstream = connect(socket);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
relay.on('error', (error) => {
  process.stderr.write(`confine-bridge: cannot listen on 127.0.0.1:${portText}: ${error.message}\n`);
  process.exit(1);
});
relay.listen(Number(portText), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('error', (error) => {
    process.stderr.write(`confine-bridge: cannot start ${command}: ${error.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + 15 : 1)));
});
// The transport signals the whole group; the server gets it too and its exit ends this one.
process.on('SIGTERM', () => undefined);
process.on('SIGINT', () => undefined);
