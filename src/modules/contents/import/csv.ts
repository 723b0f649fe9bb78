/**
 * A streaming CSV reader (RFC 4180): fields separated by commas, records by CRLF or LF, fields in
 * double quotes may hold commas, line breaks and doubled quotes. It holds one record at a time,
 * whatever the size of the input. Each record comes with the line it starts on (1-based), which
 * is what an import's errors name.
 */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A malformed input (a quote in an unquoted field, an unclosed quote), at `line`. */
export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  let fields: string[] = [];
  let field = '';
  let quoted = false; // inside a quoted field
  let wasQuoted = false; // the current field was quoted (only a separator may follow its closing quote)
  let pendingQuote = false; // a quote inside a quoted field: closing, or the first of a doubled one
  let line = 1;
  let recordLine = 1;
  let pendingCr = false;
  const endField = () => {
    fields.push(field);
    field = '';
    wasQuoted = false;
  };
  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (pendingCr) {
        pendingCr = false;
        if (c === '\n') continue;
      }
      if (pendingQuote) {
        pendingQuote = false;
        if (c === '"') {
          field += '"';
          continue;
        }
        quoted = false;
        wasQuoted = true;
      }
      if (quoted) {
        if (c === '"') pendingQuote = true;
        else {
          if (c === '\n' || (c === '\r' && chunk[i + 1] !== '\n')) line++;
          field += c;
        }
        continue;
      }
      if (c === ',') endField();
      else if (c === '\n' || c === '\r') {
        endField();
        yield { line: recordLine, fields };
        fields = [];
        line++;
        recordLine = line;
        if (c === '\r') pendingCr = true;
      } else if (c === '"') {
        if (field !== '' || wasQuoted) throw new CsvError(line, 'a quote inside an unquoted field (quote the whole field, and double the quotes inside it)');
        quoted = true;
      } else {
        if (wasQuoted) throw new CsvError(line, 'text after a closing quote (a field is either quoted as a whole or not at all)');
        field += c;
      }
    }
  }
  if (pendingQuote) {
    quoted = false;
    wasQuoted = true;
  }
  if (quoted) throw new CsvError(recordLine, 'a quoted field is not closed');
  if (field !== '' || wasQuoted || fields.length > 0) {
    endField();
    yield { line: recordLine, fields };
  }
}
