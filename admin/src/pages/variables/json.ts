/** The JSON text of a variable's value, or why it is not JSON: the parser's reason, with the line and column. */
export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

export function parseJson(text: string): Parsed {
  if (text.trim() === '') return { ok: false, message: 'Enter a JSON value: a string in quotes, a number, true, false, null, an array or an object' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Engines say where as "at position N", some with "(line L column C)": said here one way.
    const reason = message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/\s*\(line \d+ column \d+\)/, '');
    const lineColumn = /line (\d+) column (\d+)/.exec(message);
    const position = /position (\d+)/.exec(message);
    if (lineColumn) return { ok: false, message: `Not valid JSON at line ${lineColumn[1]}, column ${lineColumn[2]}: ${reason}` };
    if (!position) return { ok: false, message: `Not valid JSON: ${reason}` };
    const before = text.slice(0, Number(position[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return { ok: false, message: `Not valid JSON at line ${line}, column ${column}: ${reason}` };
  }
}

export const showJson = (value: unknown): string => JSON.stringify(value, null, 2);
