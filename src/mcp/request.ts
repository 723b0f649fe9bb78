import type { Principal } from '../auth/principal.js';

/** What the MCP server needs of the HTTP request it answers (src/http/mcp.ts makes it). */
export interface McpRequest {
  principal: Principal;
  /**
   * Runs a procedure of the router as this request's caller, with the context the same call on
   * `/v1` gets: the same authorization, validation, request log and metrics.
   */
  run(path: string, input: unknown): Promise<unknown>;
  /** Names what the request did (a tool, or an MCP method) for its request log line and metrics. */
  note(operation: string): void;
  /** A fault of ours (a 5xx) while answering: logged with its cause. */
  fault(error: unknown, path: string): void;
}
