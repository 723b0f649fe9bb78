import { useState } from 'react';
import { useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { fieldErrors } from '../../data/errors.js';
import { useProject } from '../../data/projects/context.js';
import { roleKeys } from '../../data/roles/keys.js';
import { useRoles, type Role, type Rule } from '../../data/roles/queries.js';
import { useTables } from '../../data/tables/queries.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button, TextAreaInput, TextInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, Loading, PageHeader } from '../../ui/feedback.js';
import { ExplainPanel } from './ExplainPanel.js';
import { RuleForm } from './RuleForm.js';
import './Roles.css';

type Editing = { role: Role | null; name: string; description: string; rules: Rule[] } | null;

const summary = (role: Role) =>
  role.builtIn ? 'Built in' : `${role.rules.length} rule${role.rules.length === 1 ? '' : 's'}: ${[...new Set(role.rules.map((r) => r.table))].join(', ') || 'none'}`;

/**
 * A project's roles (docs/roles.md): the built-in ones to read, custom ones to create, edit and
 * delete with their rules as a form; and the explain view of what a role, a key or a member may do.
 */
export function RolesPage() {
  const { projectId } = useParams();
  const pid = projectId!;
  const project = useProject();
  const roles = useRoles(pid);
  const tables = useTables(pid);
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Role | null>(null);
  const save = useApiMutation(async (client, edit: NonNullable<Editing>) => {
    const body = { name: edit.name, description: edit.description, rules: edit.rules };
    return edit.role ? client.roles.update.mutate({ projectId: pid, roleId: edit.role.id, ...body }) : client.roles.create.mutate({ projectId: pid, ...body });
  }, [roleKeys.all(pid)]);
  const remove = useApiMutation((client, roleId: string) => client.roles.delete.mutate({ projectId: pid, roleId }), [roleKeys.all(pid)]);
  const errors = fieldErrors(save.error);
  const start = (role: Role | null) => {
    save.reset();
    setEditing({ role, name: role?.name ?? '', description: role?.description ?? '', rules: role ? structuredClone(role.rules) : [{ table: '*', actions: ['read'] }] });
  };

  if (editing) {
    const ruleErrors = (i: number) => Object.entries(errors).filter(([field]) => field === `rules.${i}` || field.startsWith(`rules.${i}.`));
    const setRules = (rules: Rule[]) => setEditing({ ...editing, rules });
    return (
      <>
        <PageHeader title={editing.role ? `Edit role “${editing.role.name}”` : 'New role'} />
        {/* Not a <form>: each rule's filter builder is a form of its own, and forms do not nest. */}
        <section className="stack" aria-label="Role">
          <TextInput label="Name" value={editing.name} onChange={(name) => setEditing({ ...editing, name })} error={errors.name} isRequired autoFocus />
          <TextAreaInput label="Description" rows={2} value={editing.description} onChange={(description) => setEditing({ ...editing, description })} error={errors.description} />
          <h2>Rules</h2>
          <p className="muted">A rule grants, never denies: the role may do what any one of its rules allows.</p>
          {errors.rules && <p className="field-error">{errors.rules}</p>}
          {editing.rules.map((rule, i) => (
            <RuleForm
              key={i}
              projectId={pid}
              index={i}
              rule={rule}
              tables={tables.data?.list ?? []}
              locales={project.locales}
              errors={ruleErrors(i)}
              onChange={(next) => setRules(editing.rules.map((r, j) => (j === i ? next : r)))}
              onRemove={() => setRules(editing.rules.filter((_, j) => j !== i))}
            />
          ))}
          <div className="row">
            <Button onPress={() => setRules([...editing.rules, { table: '*', actions: ['read'] }])}>Add rule</Button>
          </div>
          {save.error !== null && Object.keys(errors).length === 0 && <ErrorBanner error={save.error} />}
          {Object.keys(errors).length > 0 && (
            <p role="alert" className="banner banner-error">
              The role was not saved: see the problems shown with each rule.
            </p>
          )}
          <div className="dialog-actions">
            <Button onPress={() => setEditing(null)}>Cancel</Button>
            <Button variant="primary" isDisabled={save.isPending} onPress={() => save.mutate(editing, { onSuccess: () => setEditing(null) })}>
              {editing.role ? 'Save role' : 'Create role'}
            </Button>
          </div>
        </section>
      </>
    );
  }

  return (
    <>
      <PageHeader title="Roles">
        <Button variant="primary" onPress={() => start(null)}>
          New role
        </Button>
      </PageHeader>
      <p className="muted">A role says what its holder may do in this project's tables and files. Grant a custom role to a member (Members) or to an API key (API keys).</p>
      <ErrorBanner error={roles.error} />
      {roles.isPending ? (
        <Loading />
      ) : (
        <DataTable className="ops-table" label="Roles" columns={['Role', 'Description', 'Rules', 'Actions']}>
          {roles.data?.list.map((role) => (
            <tr key={role.id}>
              <th scope="row">
                {role.name} {role.builtIn && <span className="badge">built in</span>}
              </th>
              <td>{role.description}</td>
              <td>{summary(role)}</td>
              <td>
                {!role.builtIn && (
                  <div className="ops-actions">
                    <Button aria-label={`Edit ${role.name}`} onPress={() => start(role)}>
                      Edit
                    </Button>
                    <Button variant="danger" aria-label={`Delete ${role.name}`} onPress={() => (remove.reset(), setDeleting(role))}>
                      Delete
                    </Button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ExplainPanel projectId={pid} roles={roles.data?.list ?? []} tables={tables.data?.list ?? []} />
      <ConfirmDialog
        title={deleting ? `Delete the role “${deleting.name}”?` : 'Delete'}
        isOpen={deleting !== null}
        confirmLabel="Delete role"
        isPending={remove.isPending}
        error={remove.error}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
      >
        <p>A role still granted to a member or a key cannot be deleted: grant them another role first.</p>
      </ConfirmDialog>
    </>
  );
}
