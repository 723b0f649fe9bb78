// Plain JavaScript, not TypeScript: src/check-node.mjs runs it before tsx is loaded, on any
// Node.js and without node_modules (an old Node.js after a failed npm install). Its types are
// in node-version.d.mts.

/**
 * The oldest Node.js Tabula runs on (package.json "engines"): node:zlib's zstd functions and the
 * current majors of MikroORM and pg-boss need it.
 */
export const MINIMUM_NODE = Object.freeze({ major: 22, minor: 19 });

/**
 * Why `version` (as in `process.versions.node`) cannot run Tabula, or null when it can.
 * @param {string} version
 * @returns {string | null}
 */
export function nodeVersionProblem(version) {
  const [major, minor] = version.split('.').map(Number);
  const { major: needMajor, minor: needMinor } = MINIMUM_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return (
    `Tabula needs Node.js >= ${needMajor}.${needMinor} (24 LTS recommended); this is Node.js ${version}. ` +
    'Install a current Node.js (https://nodejs.org, or: npm i --prefix ~/.cache/node24 node@24 and put ' +
    '~/.cache/node24/node_modules/.bin first on PATH), then run npm install again.'
  );
}
