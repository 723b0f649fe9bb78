/**
 * The resource groups of the `/v1` reference, in the order the docs page lists them. A router
 * names its group in `meta.openapi.tags`; the document lists only the groups in use, so a group
 * whose router is not mounted yet (Logs, Metrics) does not appear empty. A tag missing here
 * still works (it is listed last, without a description); the OpenAPI tests ask for one.
 */
export const TAGS: { name: string; description: string }[] = [
  { name: 'Accounts', description: 'The account behind an account token (`tat_…`). API keys get 403 here.' },
  { name: 'Workspaces', description: 'Workspaces hold projects. The creator is OWNER; lists show the caller’s workspaces only.' },
  { name: 'Workspace Members', description: 'Roles OWNER, ADMIN, MEMBER. Inviting an unknown e-mail creates the account (its token is in the 201 body once).' },
  { name: 'Projects', description: 'Projects hold tables, contents, files and keys, with their `locales` and `defaultLocale`.' },
  { name: 'Project Members', description: 'Roles ADMIN, EDITOR, VIEWER for workspace members. Workspace OWNER/ADMIN are project ADMIN everywhere.' },
  { name: 'API Keys', description: 'Keys (`tak_…`) of one project, `read` or `read_write`, optionally limited to hosts and expiring. Managed by project ADMIN account tokens only.' },
  { name: 'Releases', description: 'Publish many rows at once: items publish, unpublish or publish a draft, all applied in one transaction with every check of a single write, now or at publishAt. EDITOR+ and read_write keys; custom roles with publish.' },
  { name: 'Roles', description: 'Roles of a project: the built-ins ADMIN, EDITOR, VIEWER and custom ones made of rules (table, actions, where, fields). Managed by project ADMIN account tokens only.' },
  { name: 'Schema', description: 'Schema as code: the project’s tables, columns and custom roles as one id-free snapshot (`GET`), the plan that turns the project into another snapshot (`diff`), and its apply in one transaction, rows checked first (422), destructive changes only with `allowDestructive` (409). Project ADMIN account tokens only. See docs/environments.md.' },
  { name: 'Tables', description: 'Tables of a project. `{tableId}` may be the id or the `key`. `GET /{projectId}/openapi.json` describes the project’s own tables.' },
  { name: 'Columns', description: 'Typed columns of a table: text, longtext, number, integer, boolean, date, datetime, email, url, select, json, slug, reference, file.' },
  { name: 'Contents', description: 'Rows of a table. Read keys see PUBLISHED rows only. Lists take `fields`, `sort`, `filter`, `op`, `cursor` and `locale`.' },
  { name: 'Categories', description: 'A tree of categories per project (`parentId`), each with a unique `slug`.' },
  { name: 'Variables', description: 'Project-wide key → any JSON value.' },
  { name: 'Translations', description: 'Strings by `key` and `locale` (a project locale).' },
  { name: 'Files', description: 'Uploads (`multipart/form-data`), metadata and downloads with byte ranges.' },
  { name: 'Webhooks', description: 'Signed event deliveries (Standard Webhooks) with retries and a delivery log.' },
  { name: 'Events', description: 'The project’s events live, as Server-Sent Events (or the tRPC subscription `events.subscribe`), resumable from the last event received.' },
  { name: 'Logs', description: 'Every request of a project, newest first (read-only).' },
  { name: 'Metrics', description: 'Request, error and storage figures of a workspace, from rollups.' },
];

/** The document's `tags`: the groups its operations use, catalogue order first. */
export function documentTags(used: Iterable<string>): { name: string; description?: string }[] {
  const inUse = new Set(used);
  const known = TAGS.filter((tag) => inUse.has(tag.name));
  const unknown = [...inUse].filter((name) => !TAGS.some((tag) => tag.name === name)).sort();
  return [...known, ...unknown.map((name) => ({ name }))];
}
