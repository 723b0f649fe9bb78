/** Types of node-version.mjs (plain JavaScript: see there why). */

/** The oldest Node.js Tabula runs on (package.json "engines"). */
export declare const MINIMUM_NODE: { readonly major: 22; readonly minor: 19 };

/** Why `version` (as in `process.versions.node`) cannot run Tabula, or null when it can. */
export declare function nodeVersionProblem(version: string): string | null;
