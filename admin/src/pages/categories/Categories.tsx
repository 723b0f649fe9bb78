import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { errorText, fieldErrors } from '../../data/errors.js';
import { categoryKeys } from '../../data/categories/keys.js';
import { useCategories, type Category } from '../../data/categories/queries.js';
import { useMyAccess } from '../../data/projects/access.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button, SelectInput, TextInput } from '../../ui/controls.js';
import { Empty, ErrorBanner, Loading, ModalDialog, PageHeader } from '../../ui/feedback.js';
import './Categories.css';

const TOP = 'top';

type Dialog = { kind: 'create'; parent: Category | null } | { kind: 'rename' | 'move' | 'delete'; category: Category } | null;

/** The ids of `category` and every category under it: where it cannot move. */
function subtree(all: Category[], id: string): Set<string> {
  const out = new Set([id]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of all) if (c.parentId && out.has(c.parentId) && !out.has(c.id)) (out.add(c.id), (grew = true));
  }
  return out;
}

/** The path of names from the top to a category, to tell categories of one name apart. */
function pathOf(all: Category[], category: Category): string {
  const names = [category.name];
  const seen = new Set([category.id]);
  for (let p = all.find((c) => c.id === category.parentId); p && !seen.has(p.id); p = all.find((c) => c.id === p!.parentId)) {
    names.unshift(p.name);
    seen.add(p.id);
  }
  return names.join(' › ');
}

/** The project's categories as a tree: create (at the top or under one), rename, move, delete. */
export function CategoriesPage() {
  const { workspaceId, projectId } = useParams();
  const pid = projectId!;
  const canWrite = useMyAccess(workspaceId!, pid).canWrite;
  const categories = useCategories(pid);
  const all = categories.data ?? [];
  const [dialog, setDialog] = useState<Dialog>(null);
  const [name, setName] = useState('');
  const [parent, setParent] = useState(TOP);
  const keys = [categoryKeys.list(pid)];
  const create = useApiMutation((client, input: { name: string; parentId: string | null }) => client.categories.create.mutate({ projectId: pid, ...input }), keys);
  const update = useApiMutation((client, input: { categoryId: string; name?: string; parentId?: string | null }) => client.categories.update.mutate({ projectId: pid, ...input }), keys);
  const remove = useApiMutation((client, categoryId: string) => client.categories.delete.mutate({ projectId: pid, categoryId }), keys);
  const open = (next: Dialog) => {
    [create, update, remove].forEach((m) => m.reset());
    setName(next && next.kind !== 'create' ? next.category.name : '');
    setParent(next && next.kind === 'move' ? (next.category.parentId ?? TOP) : TOP);
    setDialog(next);
  };
  const close = () => setDialog(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (dialog?.kind === 'create') create.mutate({ name, parentId: dialog.parent?.id ?? null }, { onSuccess: close });
    if (dialog?.kind === 'rename') update.mutate({ categoryId: dialog.category.id, name }, { onSuccess: close });
    if (dialog?.kind === 'move') update.mutate({ categoryId: dialog.category.id, parentId: parent === TOP ? null : parent }, { onSuccess: close });
  };
  const pending = dialog?.kind === 'create' ? create : update;
  const errors = fieldErrors(pending.error);

  const branch = (parentId: string | null, level: number) => {
    const children = all.filter((c) => (c.parentId ?? null) === parentId);
    if (children.length === 0) return null;
    return (
      <ul className={level === 1 ? 'category-tree' : undefined} aria-label={level === 1 ? 'Categories' : undefined}>
        {children.map((c) => (
          <li key={c.id}>
            <div className="category-item">
              <span className="category-name">{c.name}</span>
              <span className="muted mono">{c.slug}</span>
              {canWrite && (
                <span className="ops-actions">
                  <Button variant="ghost" aria-label={`Add under ${c.name}`} onPress={() => open({ kind: 'create', parent: c })}>
                    Add under
                  </Button>
                  <Button variant="ghost" aria-label={`Rename ${c.name}`} onPress={() => open({ kind: 'rename', category: c })}>
                    Rename
                  </Button>
                  <Button variant="ghost" aria-label={`Move ${c.name}`} onPress={() => open({ kind: 'move', category: c })}>
                    Move
                  </Button>
                  <Button variant="ghost" aria-label={`Delete ${c.name}`} onPress={() => open({ kind: 'delete', category: c })}>
                    Delete
                  </Button>
                </span>
              )}
            </div>
            {branch(c.id, level + 1)}
          </li>
        ))}
      </ul>
    );
  };

  const moving = dialog?.kind === 'move' ? subtree(all, dialog.category.id) : new Set<string>();
  const parents = [{ id: TOP, label: 'Top level' }, ...all.filter((c) => !moving.has(c.id)).map((c) => ({ id: c.id, label: pathOf(all, c) }))];
  const title =
    dialog?.kind === 'create' ? (dialog.parent ? `New category under “${dialog.parent.name}”` : 'New category') : dialog?.kind === 'rename' ? `Rename “${dialog.category.name}”` : dialog?.kind === 'move' ? `Move “${dialog.category.name}”` : '';
  return (
    <>
      <PageHeader title="Categories">
        {canWrite && (
          <Button variant="primary" onPress={() => open({ kind: 'create', parent: null })}>
            New category
          </Button>
        )}
      </PageHeader>
      <ErrorBanner error={categories.error} />
      {categories.isPending ? <Loading /> : all.length === 0 ? <Empty>No category yet.</Empty> : branch(null, 1)}

      <ModalDialog title={title} isOpen={dialog !== null && dialog.kind !== 'delete'} onClose={close}>
        <form className="stack" onSubmit={submit}>
          {dialog?.kind === 'move' ? (
            <SelectInput label="New parent" value={parent} options={parents} onChange={setParent} error={errors.parentId} />
          ) : (
            <TextInput label="Name" value={name} onChange={setName} error={errors.name ?? errors.slug} isRequired autoFocus />
          )}
          {pending.error !== null && Object.keys(errors).length === 0 && <p role="alert" className="banner banner-error">{errorText(pending.error)}</p>}
          <div className="dialog-actions">
            <Button onPress={close}>Cancel</Button>
            <Button type="submit" variant="primary" isDisabled={pending.isPending}>
              {dialog?.kind === 'create' ? 'Create' : dialog?.kind === 'move' ? 'Move' : 'Rename'}
            </Button>
          </div>
        </form>
      </ModalDialog>
      <ConfirmDialog
        title={dialog?.kind === 'delete' ? `Delete “${dialog.category.name}”?` : 'Delete'}
        isOpen={dialog?.kind === 'delete'}
        confirmLabel="Delete category"
        isPending={remove.isPending}
        error={remove.error}
        onClose={close}
        onConfirm={() => dialog?.kind === 'delete' && remove.mutate(dialog.category.id, { onSuccess: close })}
      >
        <p>Its subcategories move to the top level.</p>
      </ConfirmDialog>
    </>
  );
}
