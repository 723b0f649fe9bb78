import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';

/**
 * Redocly's `recommended` ruleset, with the rules that guard what the documents promise raised
 * to errors: every operation tagged with a described tag, a 2xx and a 4xx response, an
 * operationId, and examples that validate against their schemas (extra properties refused).
 */
const RULES = {
  'operation-tag-defined': 'error',
  'tag-description': 'error',
  'operation-2xx-response': 'error',
  'operation-4xx-response': 'error',
  'operation-operationId': 'error',
  'security-defined': 'error',
  'no-unused-components': 'error',
  'no-invalid-media-type-examples': { severity: 'error', allowAdditionalProperties: false },
  'no-invalid-parameter-examples': 'error',
  'no-invalid-schema-examples': 'error',
} as const;

export interface LintResult {
  errors: NormalizedProblem[];
  warnings: NormalizedProblem[];
}

let config: ReturnType<typeof createConfig> | undefined;

/** Lints an OpenAPI document (an object) from memory. */
export async function lintOpenApi(doc: object): Promise<LintResult> {
  config ??= createConfig({ extends: ['recommended'], rules: RULES });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config: await config });
  return {
    errors: problems.filter((p) => p.severity === 'error'),
    warnings: problems.filter((p) => p.severity === 'warn'),
  };
}

/** One line per problem, for assertion messages. */
export const describeProblems = (problems: NormalizedProblem[]) =>
  problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`).join('\n');
