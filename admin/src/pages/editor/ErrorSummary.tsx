import { useEffect, useRef } from 'react';
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

/** Focuses the input of an API field path: the field's own control (after its locale tab is shown). */
export function focusField(field: string): void {
  const [, name] = /^data\.([^.]+)/.exec(field) ?? [];
  const holder = name ? document.querySelector(`[data-field="data.${CSS.escape(name)}"]`) : null;
  const control = holder?.querySelector<HTMLElement>('[role="tabpanel"] input, [role="tabpanel"] textarea, input:not([type="hidden"]), textarea, select, button');
  control?.focus();
}

/**
 * The alert above the form after a refused write: what was refused, and each field's reason
 * (each also shows at its field), each a link to the field. A refusal about no field (a status
 * change not allowed, a lost connection) is said in words with its request id. A new `focusKey`
 * moves the focus to it, as after a refused save, so that a keyboard or screen-reader user
 * starts from the list of what to fix (as GOV.UK's error summary does).
 */
export function ErrorSummary({ error, errors, columns, focusKey }: { error: unknown; errors: Record<string, string>; columns: Column[]; focusKey?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusKey) box.current?.focus();
  }, [focusKey]);
  const entries = Object.entries(errors);
  if (!error && entries.length === 0) return null;
  const validation = error instanceof TabulaError && (error.code === 'VALIDATION_ERROR' || error.code === 'CONFLICT');
  let headline: string;
  if (entries.length === 0) headline = errorText(error);
  else if (error instanceof TabulaError && error.code === 'CONFLICT') headline = 'Not saved: a value is already used by another row.';
  else headline = `Not saved: ${entries.length === 1 ? '1 field needs' : `${entries.length} fields need`} attention.`;
  return (
    <div role="alert" className="banner banner-error editor-summary" tabIndex={-1} ref={box}>
      <p>{headline}</p>
      {entries.length > 0 && (
        <ul>
          {entries.map(([field, message]) => (
            <li key={field}>
              <button type="button" className="editor-summary-link" onClick={() => focusField(field)}>
                {fieldName(field, columns)}
              </button>
              : {message}
            </li>
          ))}
        </ul>
      )}
      {validation && error instanceof TabulaError && error.requestId && <p className="muted">Request {error.requestId}</p>}
    </div>
  );
}
