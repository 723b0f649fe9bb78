/**
 * What the docs tests read in the markdown pages: fenced code blocks (the curl examples), the
 * markers that steer them, links and heading anchors. Pure functions over text, no I/O.
 *
 * Conventions a page follows (docs/README of the test, repeated here because this is the code
 * that enforces them):
 * - Every shell example that calls curl is a ```sh block; it is run by the examples test.
 * - `<!-- not-run: reason -->` on the line(s) right above such a block keeps it from running; the
 *   test lists every such block, so a skip is visible and deliberate.
 * - A curl command whose answer is not a 2xx says which status it expects with `# → 409` at the
 *   end of the command (its last line); the command must then start with `curl`.
 */

export interface CodeBlock {
  /** The fence's info string, e.g. `sh`, `ts`, `` (none). */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** The reason of a `<!-- not-run: … -->` marker right above the fence, else null. */
  notRun: string | null;
}

const FENCE = /^(`{3,}|~{3,})\s*([^\s`]*)/;
const NOT_RUN = /^<!--\s*not-run:\s*(.*?)\s*-->$/;

/** The fenced code blocks of a markdown text, in order. An unclosed fence is an error. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(FENCE);
    if (!open) continue;
    const fence = open[1];
    const end = lines.findIndex((l, j) => j > i && l.trimEnd() === fence);
    if (end < 0) throw new Error(`line ${i + 1}: code block is never closed`);
    blocks.push({ lang: open[2], line: i + 1, code: lines.slice(i + 1, end).join('\n'), notRun: notRunAbove(lines, i) });
    i = end;
  }
  return blocks;
}

/** The reason of a not-run marker on the last non-blank line above line index `fence`. */
function notRunAbove(lines: string[], fence: number): string | null {
  let j = fence - 1;
  while (j >= 0 && lines[j].trim() === '') j--;
  const marker = j >= 0 ? lines[j].trim().match(NOT_RUN) : null;
  if (!marker) return null;
  if (!marker[1]) throw new Error(`line ${j + 1}: a not-run marker needs a reason`);
  return marker[1];
}

/** Lines of shell code without comments (whole-line, or from a ` #` to the end of the line). */
const commandLines = (code: string) =>
  code
    .split('\n')
    .filter((l) => !l.trim().startsWith('#'))
    .map((l) => l.replace(/\s#.*$/, ''));

/** Whether shell code calls curl (a word `curl` outside comments). */
export function callsCurl(code: string): boolean {
  return commandLines(code).some((l) => /(^|[\s;|&(`$])curl(\s|$)/.test(l));
}

/** Shell blocks that call curl: what the examples test runs (or lists, when marked not-run). */
export function curlBlocks(markdown: string): CodeBlock[] {
  return codeBlocks(markdown).filter((b) => b.lang === 'sh' && callsCurl(b.code));
}

/** Blocks in another shell dialect (bash, shell, console…) that call curl: they would escape the test. */
export function strayCurlBlocks(markdown: string): CodeBlock[] {
  return codeBlocks(markdown).filter((b) => b.lang !== 'sh' && /^(bash|shell|console|zsh|shell-session|)$/.test(b.lang) && callsCurl(b.code));
}

/** Not-run markers that do not stand right above a curl block (a stale or misplaced marker). */
export function danglingNotRunMarkers(markdown: string): number[] {
  const marked = new Set(curlBlocks(markdown).filter((b) => b.notRun !== null).map((b) => b.line));
  const lines = markdown.split('\n');
  const dangling: number[] = [];
  lines.forEach((l, i) => {
    if (!NOT_RUN.test(l.trim())) return;
    let j = i + 1;
    while (j < lines.length && lines[j].trim() === '') j++;
    if (!marked.has(j + 1)) dangling.push(i + 1);
  });
  return dangling;
}

const EXPECT = /\s#\s*→\s*(\d{3})\b/;

export interface PreparedBlock {
  code: string;
  /** The non-2xx statuses the block declares, in order. */
  expected: number[];
}

export interface Substitutions {
  /** Variables the harness provides: a line `export NAME=…` for one of them is dropped. */
  provided: string[];
  /** Addresses the docs write → the test's own (the API at 127.0.0.1:3000, a webhook receiver). */
  replace: [documented: string, actual: string][];
}

/**
 * A block as the harness runs it: the `export` lines of provided variables become comments, the
 * documented addresses become the test's, and a command marked `# → NNN` is prefixed with
 * `TABULA_EXPECT=NNN` (which the harness's curl function reads).
 */
export function prepareBlock(code: string, subs: Substitutions): PreparedBlock {
  const lines = subs.replace.reduce((text, [documented, actual]) => text.replaceAll(documented, actual), code).split('\n');
  const expected: number[] = [];
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    // One logical command: physical lines joined while they end with a backslash.
    const start = i;
    while (i < lines.length - 1 && lines[i].endsWith('\\')) i++;
    const command = lines.slice(start, i + 1);
    const first = command[0];
    if (first.trim().startsWith('#')) {
      if (EXPECT.test(` ${first}`)) throw new Error(`"${first.trim()}": put "# → NNN" at the end of the curl command it is about`);
      out.push(...command);
      continue;
    }
    const exported = first.match(/^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=/);
    if (exported && subs.provided.includes(exported[1])) {
      out.push(`: # ${exported[1]} is provided by the test harness`);
      continue;
    }
    const mark = command[command.length - 1].match(EXPECT);
    if (mark) {
      if (!/^\s*curl\s/.test(first)) throw new Error(`"# → ${mark[1]}" marks a command that does not start with curl: ${first.trim()}`);
      expected.push(Number(mark[1]));
      command[0] = first.replace(/^(\s*)curl\s/, `$1TABULA_EXPECT=${mark[1]} curl `);
    }
    out.push(...command);
  }
  return { code: out.join('\n'), expected };
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces → dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings (outside code blocks); repeated headings get -1, -2… as on GitHub. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!heading) continue;
    const base = slug(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** Lines outside fenced code blocks. */
function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const open = line.match(FENCE);
    if (fence === null && open) fence = open[1];
    else if (fence !== null && line.trimEnd() === fence) fence = null;
    else if (fence === null) lines.push(line);
  }
  return lines;
}

export interface Link {
  line: string;
  target: string;
}

/** Inline links `[text](target)` outside code (blocks and spans), with the line they are on. */
export function links(markdown: string): Link[] {
  const result: Link[] = [];
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) result.push({ line: line.trim(), target: m[1] });
  }
  return result;
}
