import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { fieldErrors } from '../../data/errors.js';
import { memberKeys } from '../../data/members/keys.js';
import { useProjectMembers, useWorkspaceMemberList, type ProjectMember, type WorkspaceMember } from '../../data/members/queries.js';
import { useMyAccess } from '../../data/projects/access.js';
import { useRoles } from '../../data/roles/queries.js';
import { useMe } from '../../data/session/queries.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button, SelectInput, TextInput, type Option } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, PageHeader } from '../../ui/feedback.js';
import { SecretDialog } from '../../ui/SecretDialog.js';

const WORKSPACE_ROLES: Option[] = [
  { id: 'MEMBER', label: 'Member' },
  { id: 'ADMIN', label: 'Admin' },
  { id: 'OWNER', label: 'Owner' },
];

type Removal = { kind: 'project'; member: ProjectMember } | { kind: 'workspace'; member: WorkspaceMember } | null;

/**
 * Who works in the project and the workspace: invite by e-mail (an unknown address gets an
 * account, whose token is shown once), change a member's role (for the project: a built-in role or
 * one of the project's custom roles), remove. Project admins only (the navigation hides it from others).
 */
export function MembersPage() {
  const { workspaceId, projectId } = useParams();
  const wid = workspaceId!;
  const pid = projectId!;
  const access = useMyAccess(wid, pid);
  const me = useMe();
  const project = useProjectMembers(wid, pid);
  const roles = useRoles(pid);
  const workspaceAdmin = access.workspaceAdmin;
  const workspace = useWorkspaceMemberList(wid);
  const [removal, setRemoval] = useState<Removal>(null);
  const [token, setToken] = useState<{ email: string; value: string } | null>(null);

  const roleOptions: Option[] = (roles.data?.list ?? []).map((r) => ({ id: r.id, label: r.builtIn ? r.name : `${r.name} (custom)` }));
  const invalidates = [memberKeys.project(pid), memberKeys.workspace(wid)];
  const invite = useApiMutation(async (client, input: { email: string; role: string }) => {
    const known = workspace.data?.list.find((m) => m.email.toLowerCase() === input.email.toLowerCase());
    const invited = known ? null : await client.workspaceMembers.invite.mutate({ workspaceId: wid, email: input.email, role: 'MEMBER' });
    await client.projectMembers.add.mutate({ workspaceId: wid, projectId: pid, email: input.email, role: input.role });
    return invited;
  }, invalidates);
  const changeProject = useApiMutation((client, input: { memberId: string; role: string }) => client.projectMembers.update.mutate({ workspaceId: wid, projectId: pid, ...input }), invalidates);
  const changeWorkspace = useApiMutation(
    (client, input: { memberId: string; role: 'OWNER' | 'ADMIN' | 'MEMBER' }) => client.workspaceMembers.update.mutate({ workspaceId: wid, ...input }),
    invalidates,
  );
  const remove = useApiMutation(async (client, target: NonNullable<Removal>) => {
    if (target.kind === 'project') await client.projectMembers.remove.mutate({ workspaceId: wid, projectId: pid, memberId: target.member.id });
    else await client.workspaceMembers.remove.mutate({ workspaceId: wid, memberId: target.member.id });
  }, invalidates);

  const [email, setEmail] = useState('');
  const [role, setRole] = useState('EDITOR');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate(
      { email: email.trim(), role },
      {
        onSuccess: (invited) => {
          if (invited?.accessToken) setToken({ email: invited.email, value: invited.accessToken });
          setEmail('');
        },
      },
    );
  };
  const inviteErrors = fieldErrors(invite.error);
  const changeError = changeProject.error ?? changeWorkspace.error;

  return (
    <>
      <PageHeader title="Members" />
      <p className="muted">
        People work in a project with a role: Admin manages it, Editor writes, Viewer reads, and a custom role (see Roles) allows what its rules say.
      </p>
      <section aria-labelledby="project-members">
        <h2 id="project-members">Project members</h2>
        <form className="inline-form" onSubmit={submit} aria-label="Invite to the project">
          <TextInput label="E-mail" type="email" value={email} onChange={setEmail} error={inviteErrors.email} isRequired />
          <SelectInput label="Role" value={role} onChange={setRole} options={roleOptions} error={inviteErrors.role} />
          <Button type="submit" variant="primary" isDisabled={invite.isPending || email.trim() === ''}>
            Invite
          </Button>
        </form>
        {invite.error !== null && Object.keys(inviteErrors).length === 0 && <ErrorBanner error={invite.error} />}
        <ErrorBanner error={project.error ?? changeError} />
        <ListState pending={project.isPending} items={project.data?.list} empty="No project member yet: workspace owners and admins manage every project.">
          <DataTable className="ops-table" label="Project members" columns={['Member', 'Role', 'Actions']}>
            {project.data?.list.map((member) => (
              <tr key={member.id}>
                <th scope="row">
                  {member.name || member.email}
                  <div className="muted">{member.email}</div>
                </th>
                <td>
                  <SelectInput
                    label={`Role of ${member.email}`}
                    value={member.role}
                    options={roleOptions.some((o) => o.id === member.role) ? roleOptions : [...roleOptions, { id: member.role, label: member.role }]}
                    onChange={(next) => next !== member.role && changeProject.mutate({ memberId: member.id, role: next })}
                  />
                </td>
                <td>
                  <Button variant="danger" aria-label={`Remove ${member.email} from the project`} onPress={() => setRemoval({ kind: 'project', member })}>
                    Remove
                  </Button>
                </td>
              </tr>
            ))}
          </DataTable>
        </ListState>
      </section>

      {workspaceAdmin && (
        <section aria-labelledby="workspace-members">
          <h2 id="workspace-members">Workspace members</h2>
          <p className="muted">Owners and admins of the workspace manage all of its projects; members see the projects they are added to.</p>
          <ErrorBanner error={workspace.error} />
          {workspace.data && (
            <DataTable className="ops-table" label="Workspace members" columns={['Member', 'Workspace role', 'Actions']}>
              {workspace.data.list.map((member) => (
                <tr key={member.id}>
                  <th scope="row">
                    {member.name || member.email}
                    {member.accountId === me.data?.id && <span className="muted"> (you)</span>}
                    <div className="muted">{member.email}</div>
                  </th>
                  <td>
                    <SelectInput
                      label={`Workspace role of ${member.email}`}
                      value={member.role}
                      options={WORKSPACE_ROLES}
                      onChange={(next) => next !== member.role && changeWorkspace.mutate({ memberId: member.id, role: next as 'OWNER' | 'ADMIN' | 'MEMBER' })}
                    />
                  </td>
                  <td>
                    <Button variant="danger" aria-label={`Remove ${member.email} from the workspace`} onPress={() => setRemoval({ kind: 'workspace', member })}>
                      Remove
                    </Button>
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </section>
      )}

      <ConfirmDialog
        title={removal ? `Remove ${removal.member.email}?` : 'Remove'}
        isOpen={removal !== null}
        confirmLabel="Remove"
        isPending={remove.isPending}
        error={remove.error}
        onClose={() => {
          remove.reset();
          setRemoval(null);
        }}
        onConfirm={() => removal && remove.mutate(removal, { onSuccess: () => setRemoval(null) })}
      >
        <p>{removal?.kind === 'workspace' ? 'They lose access to every project of the workspace.' : 'They lose access to this project.'}</p>
      </ConfirmDialog>
      <SecretDialog title={token ? `Account created for ${token.email}` : ''} label="Account token" secret={token?.value ?? null} onClose={() => setToken(null)} />
    </>
  );
}
