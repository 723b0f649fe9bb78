/**
 * A file's display name, however it arrives (the multipart `name` part, the file part's own
 * filename, a JSON rename), is what a download offers to save under: never a path. busboy used
 * to cut the file part's filename to its last component while the `name` part was stored as
 * given, and `-F name=../../../../etc/passwd` came back in `Content-Disposition`. Both now go
 * through cleanFileName.
 */
export const FILE_NAME_MAX = 255;

/**
 * C0 and C1 controls and DEL (a line break or NUL in a header, escape sequences in a terminal),
 * and the bidirectional marks, embeddings, overrides and isolates, with which `x\u202Etxt.exe`
 * displays as `xexe.txt`.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The last component of `raw` after `/` and `\` (POSIX and Windows paths), without control and
 * direction characters, trimmed. `.` and `..` are no names. The empty string when nothing is
 * left: the caller decides between a fallback name and a 400.
 */
export function cleanFileName(raw: string): string {
  const last = raw.replace(INVISIBLE, '').split(/[/\\]/).pop()!.trim();
  return last === '.' || last === '..' ? '' : last;
}

/** At most FILE_NAME_MAX UTF-16 units (as zod counts), never half of a surrogate pair. */
function truncated(name: string): string {
  if (name.length <= FILE_NAME_MAX) return name;
  const cut = name.slice(0, FILE_NAME_MAX);
  return (/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut).trim();
}

/** The name an upload gets from its file part's filename: cleaned, shortened, else `fallback`. */
export const nameFromFilename = (filename: string | undefined, fallback = 'file'): string =>
  truncated(cleanFileName(filename ?? '')) || fallback;
