import { useContext, useEffect, useRef, useState } from 'react';
import { Button as AriaButton, ComboBox, ComboBoxStateContext, FieldError, Input, Label, ListBox, ListBoxItem, Popover, Text, type Key } from 'react-aria-components';
import { useColumns, type Column } from '../../data/columns/queries.js';
import { useChosenRows, useContentsSearch } from '../../data/contents/queries.js';
import { useProject } from '../../data/projects/context.js';
import { useTable } from '../../data/tables/queries.js';
import { Button } from '../../ui/controls.js';
import { displayLabel } from '../list/cells.js';
import { displayColumns, displayFilter } from './display-search.js';
import { rowLabel, titleColumn } from './values.js';

interface Choice {
  id: string;
  label: string;
}

const RESULTS = 20;
const STILL_SEARCHING = 'No row chosen yet: the search is still running.';
/** Typing pauses this long before a search goes out, so that each keystroke is not a request. */
const SEARCH_DELAY_MS = 250;

function useDebounced(value: string): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
}

/**
 * Shows the list when the answer for the typed text arrives while the field has focus: the list may
 * have closed meanwhile (Enter while searching, or the page scrolled, which closes a popover).
 */
function OpenOnAnswer({ answer }: { answer: string | null }) {
  const state = useContext(ComboBoxStateContext);
  useEffect(() => {
    if (answer !== null && state && state.isFocused && !state.isOpen) state.open(null, 'manual');
    // Once per answer, not on each render of the combobox's state.
  }, [answer]);
  return null;
}

interface PickerProps {
  projectId: string;
  column: Column;
  label: string;
  value: string | string[] | null;
  onChange(value: string | string[] | null): void;
  error?: string;
}

/**
 * A reference column's value (docs/contents.md#references): rows of the target table found by
 * what names them: the table's display columns (`settings.display`, display-search.ts) when it has
 * one, else full-text search (`contents.list` with `search`); shown by the display, else by their
 * title-like column, in the project's default locale, never by id. A `multiple` column keeps a list in the chosen order.
 */
export function ReferencePicker({ projectId, column, label, value, onChange, error }: PickerProps) {
  const project = useProject();
  const targetId = String(column.settings.table);
  const target = useTable(projectId, targetId);
  const targetColumns = useColumns(projectId, targetId);
  const title = targetColumns.data ? titleColumn(targetColumns.data) : undefined;
  // The table's display (settings.display) names its rows, and the search looks in its columns.
  const display = target.data?.settings.display ?? undefined;
  const shown = displayColumns(display, targetColumns.data ?? []);
  const fields = [...new Set([...shown.map((c) => c.name), title?.name, 'slug'].filter((f): f is string => !!f))].join(',');
  const nameOf = (row: Parameters<typeof rowLabel>[0]) =>
    (display && shown.length > 0 ? displayLabel(display, targetColumns.data ?? [], row, project.defaultLocale) : '') || rowLabel(row, title, project.defaultLocale);
  const multiple = Array.isArray(value);
  const tableName = target.data?.name ?? 'the table';
  const ids = multiple ? value : value ? [value] : [];

  const [input, setInput] = useState('');
  // Each pick starts a fresh search box (a new `round`), focused again for the keyboard: clearing
  // the text of a focused combobox would reopen its list at once.
  const [round, setRound] = useState(0);
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (round > 0) inputRef.current?.focus();
  }, [round]);
  const typed = input.trim();
  const search = useDebounced(typed);
  const ready = targetColumns.data !== undefined && target.data !== undefined;
  // Each text's answer is kept under its own key, so a late answer to older text never shows for
  // newer text; the previous answer stays listed, not selectable, while the next one is out.
  const results = useContentsSearch(projectId, targetId, { search, fields, locale: project.defaultLocale, size: RESULTS, filter: shown.length > 0 ? displayFilter(search, shown, project.defaultLocale) : null }, { enabled: ready });
  const chosen = useChosenRows(projectId, targetId, ids, { fields, locale: project.defaultLocale }, { enabled: ready && ids.length > 0 });
  const labelOf = (id: string) => {
    const row = chosen.data?.list.find((r) => r.id === id);
    return row ? nameOf(row) : chosen.isFetching ? 'Loading…' : 'Missing row';
  };
  // Options can be picked only from the answer for the text as typed (docs/console.md, "The
  // reference picker"): while the typing settles or its search is out, the list shown is the last
  // answer, dimmed, and none of its options can be picked.
  const current = search === typed && results.data !== undefined && !results.isPlaceholderData;
  const items = (results.data?.list ?? []).filter((row) => !ids.includes(row.id)).map((row): Choice => ({ id: row.id, label: nameOf(row) }));
  const searching = !current && !results.error;
  // What Enter without a highlighted option did, said under the field until the text changes.
  const [hint, setHint] = useState<string | null>(null);
  // "Still searching" holds only until the answer is in.
  const shownHint = hint === STILL_SEARCHING && current ? null : hint;

  const pick = (key: Key | null) => {
    if (key === null) return;
    const id = String(key);
    onChange(multiple ? [...ids, id] : id);
    setInput('');
    setHint(null);
    setRound((r) => r + 1);
  };
  const type = (text: string) => {
    setInput(text);
    setHint(null);
  };
  // Enter with no option highlighted keeps the text; it picks only the one row the text names
  // exactly, once the search for that text has answered.
  const enterWithoutOption = () => {
    if (typed === '') return;
    if (!current) return setHint(STILL_SEARCHING);
    const exact = items.filter((item) => item.label.trim().toLowerCase() === typed.toLowerCase());
    if (exact.length === 1) return pick(exact[0].id);
    setHint(items.length === 0 ? `No row chosen: no row of ${tableName} matches.` : 'No row chosen: pick one from the list (↓, then Enter).');
  };
  const remove = (id: string) => onChange(multiple ? ids.filter((x) => x !== id) : null);

  return (
    <div className="editor-reference">
      <ComboBox
        key={round}
        className="field"
        items={items}
        inputValue={input}
        onInputChange={type}
        selectedKey={null}
        onSelectionChange={pick}
        allowsCustomValue
        allowsEmptyCollection
        disabledKeys={current ? [] : items.map((item) => item.id)}
        isInvalid={!!error}
        validationBehavior="aria"
      >
        <OpenOnAnswer answer={current && typed !== '' ? search : null} />
        <Label>{label}</Label>
        <div className="editor-combo">
          <Input
            ref={inputRef}
            placeholder={`Search ${tableName}…`}
            onKeyDown={(event) => {
              // The combobox has handled the key first: an option it highlighted is picked by it.
              if (event.key === 'Enter' && !event.currentTarget.getAttribute('aria-activedescendant')) enterWithoutOption();
            }}
          />
          <AriaButton className="editor-combo-button" aria-label={`Show ${tableName}`}>
            <span aria-hidden="true">▾</span>
          </AriaButton>
        </div>
        <Text slot="description" className={shownHint ? 'field-description editor-pick-hint' : 'field-description'} aria-live="polite">
          {shownHint ?? (searching && typed !== '' ? 'Searching…' : multiple ? `Rows of ${tableName}; pick to add.` : `A row of ${tableName}.`)}
        </Text>
        <FieldError className="field-error">{error}</FieldError>
        <Popover className="popover">
          <ListBox className="listbox" renderEmptyState={() => <p className="editor-empty-choice">{results.error ? 'The search failed.' : searching ? 'Searching…' : 'No matching rows'}</p>}>
            {(item: Choice) => (
              <ListBoxItem className="listbox-item" id={item.id} textValue={item.label}>
                {item.label}
              </ListBoxItem>
            )}
          </ListBox>
        </Popover>
      </ComboBox>
      {ids.length > 0 && (
        <ul className="editor-chosen" aria-label={`Chosen for ${label}`}>
          {ids.map((id) => (
            <li key={id}>
              <span>{labelOf(id)}</span>
              <Button variant="ghost" aria-label={`Remove ${labelOf(id)} from ${label}`} onPress={() => remove(id)}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
