import { TabulaError } from 'tabula/client';
import type { Column } from '../../data/columns/queries.js';
import { errorText } from '../../data/errors.js';
import { columnLabel } from './FieldInput.js';

/** An API field path as people read it: `data.title.de` → `Title (de)`, `publishAt` → `Publish at`. */
export function fieldName(field: string, columns: Column[]): string {
  if (field === 'publishAt') return 'Publish at';
  const [, name, locale] = /^data\.([^.]+)(?:\.(.+))?$/.exec(field) ?? [];
  const column = name ? columns.find((c) => c.name === name) : undefined;
  if (!column) return field;
  return locale ? `${columnLabel(column)} (${locale})` : columnLabel(column);
}

/**
 * The alert above the form after a refused write: what was refused, and each field's reason
 * (each also shows at its field). A refusal about no field (a status change not allowed, a lost
 * connection) is said in words with its request id.
 */
export function ErrorSummary({ error, errors, columns }: { error: unknown; errors: Record<string, string>; columns: Column[] }) {
  const entries = Object.entries(errors);
  if (!error && entries.length === 0) return null;
  const validation = error instanceof TabulaError && (error.code === 'VALIDATION_ERROR' || error.code === 'CONFLICT');
  let headline: string;
  if (entries.length === 0) headline = errorText(error);
  else if (error instanceof TabulaError && error.code === 'CONFLICT') headline = 'Not saved: a value is already used by another row.';
  else headline = `Not saved: ${entries.length === 1 ? '1 field needs' : `${entries.length} fields need`} attention.`;
  return (
    <div role="alert" className="banner banner-error editor-summary">
      <p>{headline}</p>
      {entries.length > 0 && (
        <ul>
          {entries.map(([field, message]) => (
            <li key={field}>
              <strong>{fieldName(field, columns)}</strong>: {message}
            </li>
          ))}
        </ul>
      )}
      {validation && error instanceof TabulaError && error.requestId && <p className="muted">Request {error.requestId}</p>}
    </div>
  );
}
