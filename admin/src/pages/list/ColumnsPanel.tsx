import { useId, useState } from 'react';
import { Button, CheckboxInput } from '../../ui/controls.js';
import { MAX_WIDTH, MIN_WIDTH, type ColumnPrefs } from './column-prefs.js';
import type { Shown } from './shown-columns.js';

const STEP = 10;

/**
 * "Columns": which of the grid's columns show and how wide, for this table on this device
 * (column-prefs.ts). A column is shown or hidden by its checkbox; its width is typed in pixels
 * (the arrow keys step it) or dragged at its header's right edge; an empty width is the width
 * of its values. The first column, the row's name, always shows.
 */
export function ColumnsPanel({ columns, prefs, onShown, onWidth, onReset }: {
  columns: Shown[];
  prefs: ColumnPrefs;
  onShown(id: string, shown: boolean): void;
  onWidth(id: string, px: number | null): void;
  onReset(): void;
}) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const hiddenCount = columns.slice(1).filter((c) => prefs.hidden.includes(c.id)).length;
  /** The width a column takes now (its header's), where a step from "auto" starts. */
  const measure = (index: number) => {
    const shownIndex = columns.slice(0, index).filter((c, i) => i === 0 || !prefs.hidden.includes(c.id)).length;
    const header = document.querySelectorAll<HTMLElement>('.list-table thead th')[shownIndex];
    return header ? Math.round(header.getBoundingClientRect().width) : MIN_WIDTH;
  };
  return (
    <div className="list-columns">
      <Button aria-expanded={open} aria-controls={panelId} onPress={() => setOpen(!open)}>
        {hiddenCount > 0 ? `Columns (${hiddenCount} hidden)` : 'Columns'}
      </Button>
      {open && (
        <section id={panelId} className="list-columns-panel" aria-label="Columns shown">
          <ul>
            {columns.map((column, index) => (
              <li key={column.id}>
                {index === 0 ? <span className="list-columns-fixed">{column.name} (always shown)</span> : <CheckboxInput label={`Show ${column.name}`} value={!prefs.hidden.includes(column.id)} onChange={(on) => onShown(column.id, on)} />}
                <WidthInput name={column.name} value={prefs.widths[column.id]} onChange={(px) => onWidth(column.id, px)} measured={() => measure(index)} />
              </li>
            ))}
          </ul>
          <Button variant="ghost" onPress={onReset}>
            Show every column at its own width
          </Button>
        </section>
      )}
    </div>
  );
}

/** A width in pixels; an input that is empty (or not a number) means the values' own width. */
function WidthInput({ name, value, onChange, measured }: { name: string; value: number | undefined; onChange(px: number | null): void; measured(): number }) {
  const id = useId();
  const [typing, setTyping] = useState<string | null>(null);
  return (
    <span className="list-columns-width">
      <label htmlFor={id}>{`Width of ${name} (px)`}</label>
      <input
        id={id}
        type="number"
        min={MIN_WIDTH}
        max={MAX_WIDTH}
        step={STEP}
        placeholder="auto"
        value={typing ?? value ?? ''}
        onChange={(event) => {
          // Typed digits take effect once they make a width in range ("3", "30" on the way to "300" do not).
          const px = event.target.valueAsNumber;
          setTyping(event.target.value);
          if (event.target.value === '') onChange(null);
          else if (Number.isFinite(px) && px >= MIN_WIDTH && px <= MAX_WIDTH) onChange(px);
        }}
        onBlur={() => setTyping(null)}
        onKeyDown={(event) => {
          // ↑/↓ step by STEP from the width shown (the browser's own step counts from `min`); auto starts from the header's width.
          if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
          event.preventDefault();
          setTyping(null);
          const from = value ?? measured();
          onChange(from + (event.key === 'ArrowUp' ? STEP : -STEP));
        }}
      />
    </span>
  );
}
