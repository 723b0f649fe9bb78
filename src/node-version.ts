/**
 * The oldest Node.js Tabula runs on (package.json "engines"): node:zlib's zstd functions and the
 * current majors of MikroORM and pg-boss need it.
 */
export const MINIMUM_NODE = { major: 22, minor: 19 } as const;

/** Why `version` (as in `process.versions.node`) cannot run Tabula, or null when it can. */
export function nodeVersionProblem(version: string): string | null {
  const [major, minor] = version.split('.').map(Number);
  const { major: needMajor, minor: needMinor } = MINIMUM_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return (
    `Tabula needs Node.js >= ${needMajor}.${needMinor} (24 LTS recommended); this is Node.js ${version}. ` +
    'Install a current Node.js (https://nodejs.org, or: npm i --prefix ~/.cache/node24 node@24 and put ' +
    '~/.cache/node24/node_modules/.bin first on PATH), then run npm install again.'
  );
}
