import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useNavigate, useParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { fieldErrors } from '../../data/errors.js';
import { projectKeys } from '../../data/projects/keys.js';
import { useProjects } from '../../data/projects/queries.js';
import { useWorkspace } from '../../data/workspaces/queries.js';
import { Button, TextInput } from '../../ui/controls.js';
import { ErrorBanner, ListState, PageHeader } from '../../ui/feedback.js';

interface NewProject {
  name: string;
  locales: string[];
}

/** A workspace's projects, and a new one with its locales. */
export function ProjectsPage() {
  const { workspaceId } = useParams();
  const navigate = useNavigate();
  const workspace = useWorkspace(workspaceId);
  const projects = useProjects(workspaceId);
  const [name, setName] = useState('');
  const [locales, setLocales] = useState('en');
  const create = useApiMutation((client, input: NewProject) => client.projects.create.mutate({ workspaceId: workspaceId!, ...input }), [projectKeys.list(workspaceId)]);
  const errors = fieldErrors(create.error);
  return (
    <>
      <PageHeader title={workspace.data?.name ?? 'Workspace'}>
        <Link className="btn btn-secondary" to={`/w/${workspaceId}/metrics`}>
          Usage of this workspace
        </Link>
      </PageHeader>
      <ErrorBanner error={workspace.error ?? projects.error} />
      <h2>Projects</h2>
      <ListState pending={projects.isPending} items={projects.data?.list} empty="No project yet: create the first one below.">
        <ul className="cards">
          {projects.data?.list.map((project) => (
            <li key={project.id} className="card">
              <Link to={`/w/${workspaceId}/p/${project.id}/tables`}>{project.name}</Link>
              <span className="muted">{project.locales.join(', ')}</span>
            </li>
          ))}
        </ul>
      </ListState>
      <Form
        className="inline-form"
        validationBehavior="aria"
        onSubmit={(event) => {
          event.preventDefault();
          const list = locales.split(',').map((locale) => locale.trim()).filter(Boolean);
          create.mutate({ name, locales: list }, { onSuccess: (project) => navigate(`/w/${workspaceId}/p/${project.id}/tables`) });
        }}
      >
        <TextInput label="New project" value={name} onChange={setName} error={errors.name} isRequired />
        <TextInput label="Locales" value={locales} onChange={setLocales} error={errors.locales ?? errors.defaultLocale} description="Comma-separated, the first is the default (e.g. en, pt-BR)" />
        <Button type="submit" variant="primary" isDisabled={create.isPending}>
          Create project
        </Button>
      </Form>
      {Object.keys(errors).length === 0 && <ErrorBanner error={create.error} />}
    </>
  );
}
