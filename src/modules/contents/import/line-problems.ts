import type { ErrorDetail } from '../../../errors/app-error.js';

/**
 * The offending lines of an import and their details. Lines are not found in file order (a
 * reference is missing only once the whole file is written): the 422 names the first ones of the
 * file.
 */
export class LineProblems {
  private readonly byLine = new Map<number, ErrorDetail[]>();

  readonly report = (line: number, details: ErrorDetail[]) => {
    if (details.length === 0) return;
    const known = this.byLine.get(line);
    if (known) known.push(...details);
    else this.byLine.set(line, [...details]);
  };

  get count(): number {
    return this.byLine.size;
  }

  /** The details of the `lines` first offending lines of the file. */
  first(lines: number): ErrorDetail[] {
    return [...this.byLine.keys()]
      .sort((a, b) => a - b)
      .slice(0, lines)
      .flatMap((line) => this.byLine.get(line)!);
  }
}
