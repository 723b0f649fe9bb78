import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useNavigate } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { fieldErrors } from '../../data/errors.js';
import { workspaceKeys } from '../../data/workspaces/keys.js';
import { useWorkspaces } from '../../data/workspaces/queries.js';
import { Button, TextInput } from '../../ui/controls.js';
import { ErrorBanner, ListState, PageHeader } from '../../ui/feedback.js';

/** The signed-in account's workspaces, and a new one. */
export function WorkspacesPage() {
  const navigate = useNavigate();
  const workspaces = useWorkspaces();
  const [name, setName] = useState('');
  const create = useApiMutation((client, input: { name: string }) => client.workspaces.create.mutate(input), [workspaceKeys.list()]);
  return (
    <>
      <PageHeader title="Workspaces" />
      <ErrorBanner error={workspaces.error} />
      <ListState pending={workspaces.isPending} items={workspaces.data?.list} empty="No workspace yet: create the first one below.">
        <ul className="cards">
          {workspaces.data?.list.map((workspace) => (
            <li key={workspace.id} className="card">
              <Link to={`/w/${workspace.id}`}>{workspace.name}</Link>
              <span className="muted">{workspace.role}</span>
            </li>
          ))}
        </ul>
      </ListState>
      <Form
        className="inline-form"
        validationBehavior="aria"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate({ name }, { onSuccess: (workspace) => navigate(`/w/${workspace.id}`) });
        }}
      >
        <TextInput label="New workspace" value={name} onChange={setName} error={fieldErrors(create.error).name} isRequired />
        <Button type="submit" variant="primary" isDisabled={create.isPending}>
          Create workspace
        </Button>
      </Form>
      {!fieldErrors(create.error).name && <ErrorBanner error={create.error} />}
    </>
  );
}
