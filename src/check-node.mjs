// The first preload (`node --import ./src/check-node.mjs --import tsx …`) of every npm script that
// starts Tabula: on an old Node.js the entry's own imports would fail first with an unrelated
// error (a missing node:zlib export, or tsx not found after a failed npm install). Plain
// JavaScript that imports nothing but the pure check, so it runs on any Node.js that runs ES
// modules, before tsx or any dependency is loaded. `npm run build` copies it to
// dist/src/check-node.js, the preload of start:api and start:worker.
import { nodeVersionProblem } from './node-version.mjs';

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
