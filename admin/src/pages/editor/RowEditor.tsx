import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { TabulaError } from 'tabula/client';
import { Button as AriaButton } from 'react-aria-components';
import { Link, useLocation, useNavigate } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import type { Column } from '../../data/columns/queries.js';
import { contentsKeys } from '../../data/contents/keys.js';
import { useContentDraft, type ContentRow } from '../../data/contents/queries.js';
import { fieldErrors } from '../../data/errors.js';
import { useProject } from '../../data/projects/context.js';
import { useClient } from '../../data/session/session.js';
import type { Table } from '../../data/tables/queries.js';
import { useUnsavedChanges } from '../../layout/LeaveGuard.js';
import { ConfirmButton } from '../../ui/ConfirmDialog.js';
import { Button, SelectInput } from '../../ui/controls.js';
import { ErrorBanner, Loading, PageHeader } from '../../ui/feedback.js';
import { ConflictDialog, type Conflict } from './ConflictDialog.js';
import { DraftPanel, type SaveTarget } from './DraftPanel.js';
import { ErrorSummary } from './ErrorSummary.js';
import { FieldInput } from './FieldInput.js';
import { LineInput } from './inputs.js';
import { RevisionsPanel } from './RevisionsPanel.js';
import { STATUS_NAMES, StatusPanel, type StatusChange } from './StatusPanel.js';
import { buildData, defaultFields, fromLocalInput, rowLabel, sameValue, titleColumn, toFields, type FieldValue, type FormValues } from './values.js';

type Status = NonNullable<ContentRow['status']>;
const NEW_STATUSES: Status[] = ['DRAFT', 'PUBLISHED', 'SCHEDULED'];

interface Props {
  projectId: string;
  tableId: string;
  listAddress: string;
  table: Table;
  columns: Column[];
  row: ContentRow | null;
}

/**
 * The form of one row. Edits are kept apart from the loaded values (`edits` over `base`), so
 * that a refresh from the event feed updates the fields nobody touched and keeps what the person
 * typed; a save sends the edited columns only (PUT merges them, docs/contents.md#contents).
 */
export function RowEditor({ projectId, tableId, listAddress, table, columns, row }: Props) {
  const project = useProject();
  const navigate = useNavigate();
  const location = useLocation();
  const queries = useQueryClient();
  const invalidates = [contentsKeys.table(projectId, tableId)];
  const key = contentsKeys.row(projectId, tableId, row?.id ?? 'new');

  const [target, setTarget] = useState<SaveTarget>('draft');
  const toDraft = row?.status === 'PUBLISHED' && target === 'draft';
  const draft = useContentDraft(projectId, tableId, row?.id ?? 'new', { enabled: toDraft });

  const baseData = toDraft ? draft.data?.data : row?.data;
  const base = useMemo<FormValues>(
    () => (row ? toFields(columns, baseData ?? {}, project.locales) : defaultFields(columns, project.locales, project.defaultLocale)),
    [row, columns, baseData, project.locales, project.defaultLocale],
  );
  const [edits, setEdits] = useState<FormValues>({});
  const values = useMemo(() => ({ ...base, ...edits }), [base, edits]);
  const edited = Object.keys(edits);
  const isDirty = edited.length > 0;
  // The version the edits were made over: sent as `ifVersion` with the save, so a row changed by
  // someone else meanwhile is a 412 (docs/contents.md#concurrent-edits), not a silent overwrite.
  // Until the first edit it follows the row as the event feed refreshes it.
  const editVersion = useRef<number | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const client = useClient();
  // A keystroke renders the edited field only: the fields' change handlers stay the same
  // functions (they read the row and the loaded values through refs), and FieldInput is memoized.
  const current = useRef({ row, base });
  current.current = { row, base };
  const setField = useCallback((name: string, value: FieldValue) => {
    const { row: now, base: loaded } = current.current;
    if (editVersion.current === null && now) editVersion.current = now.version ?? null;
    setEdits((previous) => {
      const { [name]: _dropped, ...rest } = previous;
      return sameValue(value, loaded[name]) ? rest : { ...rest, [name]: value };
    });
  }, []);
  const handlers = useMemo(() => Object.fromEntries(columns.map((c) => [c.name, (value: FieldValue) => setField(c.name, value)])), [columns, setField]);
  const clearEdits = () => {
    setEdits({});
    editVersion.current = null;
  };

  // Leaving the page with unsaved edits asks first, in the app or closing the tab (LeaveGuard).
  const releaseEdits = useUnsavedChanges(isDirty);

  const [error, setError] = useState<unknown>(null);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const arrival = useRef(location.state as { notice?: string; focusSave?: boolean } | null);
  const [notice, setNotice] = useState<string | null>(() => arrival.current?.notice ?? null);
  // Focus after a write (docs/console.md#focus): a created row's page starts on its Save button,
  // where the Create button was; a refused save moves it to the error summary.
  const saveButton = useRef<HTMLButtonElement>(null);
  const [summaryFocus, setSummaryFocus] = useState(0);
  useEffect(() => {
    if (arrival.current?.focusSave) saveButton.current?.focus();
  }, []);
  // The notice came with the address (a created row); dropped from history so a reload does not repeat it.
  useEffect(() => {
    if (location.state) navigate(location.pathname, { replace: true, state: null });
  }, [location.state, location.pathname, navigate]);
  const [newStatus, setNewStatus] = useState<Status>(table.defaultStatus === 'ARCHIVED' ? 'DRAFT' : table.defaultStatus);
  const [newPublishAt, setNewPublishAt] = useState('');
  const errors = useMemo(() => ({ ...fieldErrors(error), ...localErrors }), [error, localErrors]);

  const create = useApiMutation((client, input: { data: Record<string, unknown> }) =>
    client.contents.create.mutate({ projectId, tableId, data: input.data, status: newStatus, publishAt: newStatus === 'SCHEDULED' ? (fromLocalInput(newPublishAt) ?? undefined) : undefined }),
  invalidates);
  const update = useApiMutation((client, input: { data?: Record<string, unknown>; draft?: boolean; ifVersion?: number } & Partial<StatusChange>) =>
    client.contents.update.mutate({ projectId, tableId, contentsId: row!.id, ifVersion: row!.version, ...input }),
  invalidates);
  const publishDraft = useApiMutation((client) => client.drafts.publish.mutate({ projectId, tableId, contentsId: row!.id }), invalidates);
  const discardDraft = useApiMutation((client) => client.drafts.discard.mutate({ projectId, tableId, contentsId: row!.id }), invalidates);
  const remove = useApiMutation((client) => client.contents.delete.mutate({ projectId, tableId, contentsId: row!.id, ifVersion: row!.version }));
  const [saving, setSaving] = useState(false);
  const busy = create.isPending || update.isPending || publishDraft.isPending || discardDraft.isPending || remove.isPending;

  // The control that started a write gets the focus back when the write is over, if disabling it
  // meanwhile dropped the focus to the page; one that is gone (a status panel redrawn for the new
  // status) leaves it to the notice that says what happened.
  const used = useRef<HTMLElement | null>(null);
  const noticeRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    const control = used.current;
    if (busy || !control) return;
    used.current = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    if (control.isConnected && !control.matches(':disabled')) control.focus();
    else noticeRef.current?.focus();
  }, [busy]);

  /** Runs a write; its refusal shows at the fields and in the summary, its success as a notice. */
  const attempt = async (write: () => Promise<unknown>, done: string) => {
    setNotice(null);
    used.current = document.activeElement as HTMLElement | null;
    try {
      await write();
      setError(null);
      setLocalErrors({});
      setNotice(done);
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    }
  };

  const save = async () => {
    if (saving) return;
    setSaving(true);
    try {
      await saveChanges();
    } finally {
      setSaving(false);
    }
  };

  const saveChanges = async () => {
    const { data, errors: local } = buildData(columns, values, edited);
    setLocalErrors(local);
    if (Object.keys(local).length > 0) {
      setError(null);
      setNotice(null);
      setSummaryFocus((n) => n + 1);
      return;
    }
    if (row && !isDirty) {
      setNotice('Nothing to save: no value was changed.');
      return;
    }
    if (!row) {
      const created = await attempt(async () => {
        const created = await create.mutateAsync({ data });
        queries.setQueryData(contentsKeys.row(projectId, tableId, created.id), created);
        // Saved: the editor of the new row opens with nothing unsaved.
        releaseEdits();
        navigate(`${listAddress}/rows/${created.id}`, { replace: true, state: { notice: 'Row created.', focusSave: true } });
      }, 'Row created.');
      if (!created) setSummaryFocus((n) => n + 1);
      return;
    }
    await saveOver(data, editVersion.current ?? row.version);
  };

  /** Saves the edits over `version`; a 412 opens the conflict dialog with the row as it is now. */
  const saveOver = async (data: Record<string, unknown>, version: number | undefined) => {
    setNotice(null);
    try {
      await update.mutateAsync({ data, draft: toDraft || undefined, ifVersion: version });
    } catch (failure) {
      if (failure instanceof TabulaError && failure.code === 'PRECONDITION_FAILED') {
        const now = await client.contents.get.query({ projectId, tableId, contentsId: row!.id, ...(toDraft ? { version: 'draft' as const } : {}) });
        if (!toDraft) queries.setQueryData(key, now);
        setError(null);
        setConflict({ version: now.version ?? 0, theirs: toFields(columns, now.data ?? {}, project.locales) });
        return;
      }
      setError(failure);
      setSummaryFocus((n) => n + 1);
      return;
    }
    setError(null);
    setLocalErrors({});
    setConflict(null);
    clearEdits();
    setNotice(toDraft ? 'Draft saved. The published version is unchanged.' : 'Saved.');
  };

  const overwrite = () => {
    const { data } = buildData(columns, values, edited);
    void saveOver(data, conflict!.version);
  };

  const reload = async () => {
    setConflict(null);
    clearEdits();
    setLocalErrors({});
    await queries.invalidateQueries({ queryKey: key });
    await queries.invalidateQueries({ queryKey: contentsKeys.draft(projectId, tableId, row!.id) });
    setNotice('Reloaded: you see the saved version.');
  };

  const changeStatus = (change: StatusChange) =>
    attempt(
      () => update.mutateAsync(change),
      change.status === 'SCHEDULED' ? `Scheduled for ${new Date(change.publishAt ?? '').toLocaleString()}.` : `Status changed to ${STATUS_NAMES[change.status]}.`,
    );

  const deleteRow = () =>
    attempt(async () => {
      await remove.mutateAsync(undefined);
      // Deleted: unsaved edits of a row that is gone are nothing to keep.
      releaseEdits();
      navigate(listAddress, { replace: true });
      queries.removeQueries({ queryKey: key });
      await queries.invalidateQueries({ queryKey: contentsKeys.table(projectId, tableId) });
    }, 'Row deleted.');

  const title = row ? rowLabel(row, titleColumn(columns), project.defaultLocale) : `New row in ${table.name}`;
  // The tab says which row it holds (and that it has unsaved edits): several open rows stay apart.
  useEffect(() => {
    const before = document.title;
    document.title = `${isDirty ? '• ' : ''}${title} · ${table.name} · Tabula`;
    return () => {
      document.title = before;
    };
  }, [title, table.name, isDirty]);
  return (
    <>
      <PageHeader title={title}>
        <Link to={listAddress}>All rows of {table.name}</Link>
      </PageHeader>
      <p role="status" className={notice ? 'banner banner-ok' : 'editor-status-empty'} ref={noticeRef} tabIndex={-1}>
        {notice}
      </p>
      <ErrorSummary error={error} errors={errors} columns={columns} focusKey={summaryFocus} />
      <div className="columns-2">
        <form
          className="card editor-form"
          aria-label={row ? 'Row values' : 'New row values'}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          {toDraft && <p className="banner banner-warn">Changes are saved as a draft; the published version stays live.</p>}
          {toDraft && draft.error ? (
            <ErrorBanner error={draft.error} />
          ) : toDraft && !draft.data ? (
            <Loading label="Loading the draft…" />
          ) : (
            columns.map((column) => (
              <FieldInput
                key={column.id}
                projectId={projectId}
                column={column}
                columns={columns}
                locales={project.locales}
                defaultLocale={project.defaultLocale}
                value={values[column.name] ?? null}
                onChange={handlers[column.name]}
                errors={errors}
              />
            ))
          )}
          {!row && (
            <div className="row editor-new-status">
              <SelectInput label="Status" value={newStatus} onChange={(s) => setNewStatus(s as Status)} options={NEW_STATUSES.map((s) => ({ id: s, label: STATUS_NAMES[s] }))} />
              {newStatus === 'SCHEDULED' && <LineInput label="Publish at" type="datetime-local" value={newPublishAt} onChange={setNewPublishAt} error={errors.publishAt} />}
            </div>
          )}
          <div className="row editor-actions">
            {/* Not disabled by its own save, so that it keeps the focus (a second press meanwhile is ignored). */}
            <AriaButton ref={saveButton} type="submit" className="btn btn-primary" isDisabled={busy && !saving}>
              {!row ? 'Create row' : toDraft ? 'Save draft' : 'Save'}
            </AriaButton>
            <Button
              isDisabled={!isDirty || busy}
              onPress={() => {
                clearEdits();
                setLocalErrors({});
                setError(null);
                // The button is disabled with nothing left to reset: the focus goes to its neighbour.
                saveButton.current?.focus();
              }}
            >
              Reset changes
            </Button>
            {row && isDirty && <span className="muted">Unsaved changes</span>}
          </div>
        </form>
        {row && (
          <aside className="stack editor-side" aria-label="Status and history">
            <StatusPanel key={`${row.status}-${row.publishAt}`} row={row} isDirty={isDirty} busy={busy} publishAtError={errors.publishAt} onChange={changeStatus} />
            {(row.status === 'PUBLISHED' || row.hasDraft) && (
              <DraftPanel
                row={row}
                target={target}
                onTarget={setTarget}
                isDirty={isDirty}
                busy={busy}
                onPublish={() => attempt(() => publishDraft.mutateAsync(undefined), 'Draft published.')}
                onDiscard={() => attempt(() => discardDraft.mutateAsync(undefined), 'Draft discarded.')}
              />
            )}
            <RevisionsPanel projectId={projectId} tableId={tableId} contentId={row.id} columns={columns} toDraft={toDraft} />
            <section className="card stack" aria-labelledby="delete-heading">
              <h2 id="delete-heading">Delete</h2>
              <ConfirmButton label="Delete row" title="Delete this row?" confirmLabel="Delete" isDisabled={busy} onConfirm={deleteRow}>
                <p>“{title}” and its revisions are deleted. This cannot be undone.</p>
              </ConfirmButton>
            </section>
          </aside>
        )}
      </div>
      <ConflictDialog
        conflict={conflict}
        columns={columns}
        edits={edits}
        busy={busy}
        onClose={() => setConflict(null)}
        onReload={() => void reload()}
        onOverwrite={overwrite}
      />
    </>
  );
}
