import { useMemo, useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { errorText } from '../../data/errors.js';
import { useProject } from '../../data/projects/context.js';
import { useMyAccess } from '../../data/projects/access.js';
import { translationKeys } from '../../data/translations/keys.js';
import { useTranslations, type Translation } from '../../data/translations/queries.js';
import { Button, CheckboxInput, TextInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, PageHeader } from '../../ui/feedback.js';
import './Translations.css';

type Cell = { key: string; locale: string; translation: Translation | undefined };

/**
 * The project's translations as a grid of message keys by locales: a missing translation is a
 * marked empty cell; a cell is saved when it loses the focus or on Enter (emptied: deleted).
 */
export function TranslationsPage() {
  const { workspaceId, projectId } = useParams();
  const pid = projectId!;
  const { locales } = useProject();
  const canWrite = useMyAccess(workspaceId!, pid).canWrite;
  const translations = useTranslations(pid);
  const [added, setAdded] = useState<string[]>([]);
  const [newKey, setNewKey] = useState('');
  const [onlyMissing, setOnlyMissing] = useState(false);
  const [said, setSaid] = useState('');
  const byKey = useMemo(() => {
    const map = new Map<string, Map<string, Translation>>();
    for (const t of translations.data ?? []) {
      if (!map.has(t.key)) map.set(t.key, new Map());
      map.get(t.key)!.set(t.locale, t);
    }
    for (const key of added) if (!map.has(key)) map.set(key, new Map());
    return map;
  }, [translations.data, added]);
  const keys = [...byKey.keys()].sort((a, b) => a.localeCompare(b)).filter((k) => !onlyMissing || locales.some((l) => !byKey.get(k)!.has(l)));
  const missing = [...byKey.values()].reduce((n, m) => n + locales.filter((l) => !m.has(l)).length, 0);

  const save = useApiMutation(async (client, { cell, value }: { cell: Cell; value: string }) => {
    if (cell.translation && value === '') await client.translations.delete.mutate({ projectId: pid, translationId: cell.translation.id });
    else if (cell.translation) await client.translations.update.mutate({ projectId: pid, translationId: cell.translation.id, value });
    else await client.translations.create.mutate({ projectId: pid, key: cell.key, locale: cell.locale, value });
    return value === '' ? `Removed ${cell.key} in ${cell.locale}` : `Saved ${cell.key} in ${cell.locale}`;
  }, [translationKeys.list(pid)]);
  const commit = (cell: Cell, value: string) => {
    if (value === (cell.translation?.value ?? '')) return;
    save.mutate({ cell, value }, { onSuccess: setSaid });
  };
  const addKey = (event: FormEvent) => {
    event.preventDefault();
    const key = newKey.trim();
    if (key === '') return;
    setAdded((list) => [...list, key]);
    setNewKey('');
    setSaid(`Key ${key} added: fill in its translations`);
  };

  return (
    <>
      <PageHeader title="Translations" />
      <p className="muted">
        Messages of the project's applications, by key, in each locale ({locales.join(', ')}). {missing > 0 ? `${missing} missing.` : 'None missing.'}
      </p>
      <div className="toolbar">
        {canWrite && (
          <form className="inline-form translation-add" onSubmit={addKey}>
            <TextInput label="New key" value={newKey} onChange={setNewKey} />
            <Button type="submit">Add key</Button>
          </form>
        )}
        <CheckboxInput label="Only keys with a missing translation" value={onlyMissing} onChange={setOnlyMissing} />
      </div>
      <p role="status" className="muted">
        {save.isPending ? 'Saving…' : said}
      </p>
      {save.error !== null && (
        <p role="alert" className="banner banner-error">
          {errorText(save.error)}
        </p>
      )}
      <ErrorBanner error={translations.error} />
      <ListState pending={translations.isPending} items={keys} empty={onlyMissing ? 'No translation is missing.' : 'No translation yet.'}>
        <div className="translation-scroll">
          <DataTable className="translation-grid" label="Translations" columns={['Key', ...locales]}>
            {keys.map((key) => (
              <tr key={key}>
                <th scope="row" className="mono">
                  {key}
                </th>
                {locales.map((locale) => {
                  const translation = byKey.get(key)!.get(locale);
                  return (
                    <td key={locale} className={translation ? undefined : 'translation-missing'}>
                      <CellInput cell={{ key, locale, translation }} readOnly={!canWrite} onCommit={commit} />
                    </td>
                  );
                })}
              </tr>
            ))}
          </DataTable>
        </div>
      </ListState>
    </>
  );
}

function CellInput({ cell, readOnly, onCommit }: { cell: Cell; readOnly: boolean; onCommit(cell: Cell, value: string): void }) {
  const stored = cell.translation?.value ?? '';
  const [value, setValue] = useState(stored);
  const [seen, setSeen] = useState(stored);
  // The stored value changed (a save, another editor): show it.
  if (stored !== seen) {
    setSeen(stored);
    setValue(stored);
  }
  return (
    <input
      className="translation-input"
      aria-label={`${cell.key} in ${cell.locale}${cell.translation ? '' : ' (missing)'}`}
      placeholder={cell.translation ? undefined : 'Missing'}
      value={value}
      readOnly={readOnly}
      onChange={(event) => setValue(event.currentTarget.value)}
      onBlur={() => onCommit(cell, value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') onCommit(cell, value);
        if (event.key === 'Escape') setValue(stored);
      }}
    />
  );
}
