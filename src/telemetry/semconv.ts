/**
 * The names this runtime's telemetry uses: OpenTelemetry's GenAI and MCP semantic conventions
 * (`@opentelemetry/semantic-conventions` 1.45, incubating entry point; status Development), copied
 * here as OpenTelemetry advises for incubating names (a contract test compares them), plus a few of
 * our own under `mcp_actors.`.
 */

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
export const METRIC_MCP_CLIENT_OPERATION_DURATION = 'mcp.client.operation.duration';

export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';

/** Ours: who called, for whom, how the call ended. */
export const ATTR_ACTOR = 'mcp_actors.actor';
export const ATTR_TENANT = 'mcp_actors.tenant';
export const ATTR_SERVER = 'mcp_actors.server.name';
export const ATTR_TOOL_CATEGORY = 'mcp_actors.tool.category';
export const ATTR_CALL_STATUS = 'mcp_actors.call.status';
export const ATTR_CHECKPOINT_ID = 'mcp_actors.checkpoint.id';
export const ATTR_SERVER_STATE = 'mcp_actors.server.state';
export const ATTR_SERVER_RESTARTS = 'mcp_actors.server.restarts';
export const ATTR_PROCESS_PID = 'process.pid';

/** The instrumentation scope of every tracer and meter. */
export const INSTRUMENTATION_SCOPE = 'mcp-actors';

/** The bucket boundaries the MCP conventions advise for operation durations, in seconds. */
export const DURATION_BUCKETS_S = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
