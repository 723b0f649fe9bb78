import type { Principal } from '../auth/principal.js';
import { isUuid } from '../shared/ids.js';

/**
 * What the layers of one `/v1` or `/trpc` request learn about it, for the request log and the
 * operator metrics: the projects it names, who called, and the procedures it reached. The web
 * layer starts the record when the request arrives and reads it when the response closes; the
 * procedures add to it through their context (`ctx.facts`).
 */
export interface RequestFacts {
  /** `performance.now()` at arrival, for durations. */
  started: number;
  /** `Date.now()` at arrival, for the log's `createdAt`. */
  arrivedAt: number;
  projects: Set<string>;
  /** The caller, once resolved (the rate limiter resolves it for every request it passes). */
  principal: Principal | null;
  /** tRPC procedure paths (`contents.get`); a tRPC batch reaches several. */
  procedures: string[];
  /**
   * A `/mcp` request: what it did, the tool it called (`contents.list`) or its MCP method
   * (`tools/list`); the request log and metrics name it (docs/logs-and-metrics.md#mcp).
   */
  mcp?: string[];
}

export const newRequestFacts = (): RequestFacts => ({
  started: performance.now(),
  arrivedAt: Date.now(),
  projects: new Set(),
  principal: null,
  procedures: [],
});

/** Records that the request addresses this project (tRPC names it in the input, not the path). */
export function noteProject(facts: RequestFacts, projectId: unknown): void {
  if (typeof projectId === 'string' && isUuid(projectId)) facts.projects.add(projectId.toLowerCase());
}
