#!/usr/bin/env node
// The MCP conformance suite's client under test, written only on mcp-actors' public API (the
// built dist/) and the SDK's own auth provider classes. One program for every client scenario:
// the suite gives the server URL as the last argument, the scenario in MCP_CONFORMANCE_SCENARIO
// and, for some, credentials in MCP_CONFORMANCE_CONTEXT.
//
// What it does is what a host does: one supervised server, an auth provider where the scenario
// needs one, an onElicit hook that accepts with the schema's defaults (SEP-1034), then list the
// tools and call each with arguments made from its input schema.
import { CrossAppAccessProvider, LoopbackOAuthProvider, McpClient } from '../../dist/index.js';

const sdk = (path) => import(new URL(`../../node_modules/@modelcontextprotocol/sdk/dist/esm/${path}`, import.meta.url).href);
const { ClientCredentialsProvider, PrivateKeyJwtProvider } = await sdk('client/auth-extensions.js');

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};

/** Plays the user's browser: follows the authorization URL, whose redirect lands on the provider's loopback listener. */
const browser = async (authorizationUrl) => {
  await fetch(authorizationUrl);
};

async function providerFor(name) {
  switch (name) {
    case 'auth/client-credentials-basic':
      return new ClientCredentialsProvider({ clientId: context.client_id, clientSecret: context.client_secret });
    case 'auth/client-credentials-jwt':
      return new PrivateKeyJwtProvider({ clientId: context.client_id, privateKey: context.private_key_pem, algorithm: context.signing_algorithm ?? 'ES256' });
    case 'auth/cross-app-access-complete-flow':
      return new CrossAppAccessProvider({
        clientId: context.client_id,
        clientSecret: context.client_secret,
        idpTokenEndpoint: context.idp_token_endpoint,
        idpClientId: context.idp_client_id,
        idToken: context.idp_id_token,
      });
    case 'auth/pre-registration':
      return LoopbackOAuthProvider.create({
        key: url,
        openUrl: browser,
        clientInformation: { client_id: context.client_id, client_secret: context.client_secret },
      });
    default:
      return name.startsWith('auth/')
        ? LoopbackOAuthProvider.create({ key: url, openUrl: browser, clientName: 'mcp-actors-conformance', clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' })
        : undefined;
  }
}

/** Arguments of the right types from a tool's input schema. */
function argumentsFor(tool) {
  const args = {};
  for (const [key, schema] of Object.entries(tool.inputSchema?.properties ?? {})) {
    if (!(tool.inputSchema.required ?? []).includes(key)) continue;
    args[key] = schema.type === 'number' || schema.type === 'integer' ? 1 : schema.type === 'boolean' ? true : schema.type === 'object' ? {} : schema.type === 'array' ? [] : 'x';
  }
  return args;
}

const auth = await providerFor(scenario);
const client = new McpClient(
  { name: 'conformance', url, transport: 'streamable-http', restart: 'temporary', startTimeoutMs: 20_000, callTimeoutMs: 20_000 },
  {
    ...(auth ? { auth } : {}),
    onElicit: () => ({ action: 'accept', content: {} }),
  },
);
let failed = false;
try {
  const tools = await client.listTools();
  for (const tool of tools) {
    const result = await client.callTool(tool.name, argumentsFor(tool));
    if (result.isError) console.error(`tool ${tool.name} answered an error: ${JSON.stringify(result.content)}`);
  }
} catch (error) {
  failed = true;
  console.error(`conformance client: ${error?.code ?? ''} ${error?.message ?? error}`);
} finally {
  await client.dispose();
  auth?.close?.();
}
process.exit(failed ? 1 : 0);
