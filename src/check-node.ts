/**
 * Preloaded (`node --import`) by every npm script before the entry point: on an old Node.js the
 * entry's own imports would fail first with an unrelated SyntaxError (a missing node:zlib export).
 * It imports nothing but the pure check, so it loads on any Node.js that can run tsx, and its
 * compiled form (dist/src/check-node.js, the preload of start:api and start:worker) on any Node.js
 * that runs ES modules.
 */
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
