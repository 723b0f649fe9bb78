/** The JSON text of a variable's value, or why it is not JSON: the parser's message with the line and column. */
export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

export function parseJson(text: string): Parsed {
  if (text.trim() === '') return { ok: false, message: 'Enter a JSON value: a string in quotes, a number, true, false, null, an array or an object' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    if (!at || /line \d+ column \d+/.test(message)) return { ok: false, message: `Not valid JSON: ${message}` };
    const before = text.slice(0, Number(at[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return { ok: false, message: `Not valid JSON at line ${line}, column ${column}: ${message}` };
  }
}

export const showJson = (value: unknown): string => JSON.stringify(value, null, 2);
