import type { ErrorCode } from '../errors/app-error.js';

/** What the error rules need to know about one operation. */
export interface OperationFacts {
  method: string;
  tags: string[];
  /** Takes a bearer credential (`security` is set). */
  authenticated: boolean;
  hasPathParams: boolean;
  hasQuery: boolean;
  /** The documented success status (201 for creates, 204 for deletes). */
  success: number;
  /** Takes `If-Match` (412 PRECONDITION_FAILED, docs/contents.md#concurrent-edits). */
  conditional?: boolean;
}

export type OperationKind = 'read' | 'create' | 'update' | 'delete' | 'action';

export const operationKind = (facts: Pick<OperationFacts, 'method' | 'success'>): OperationKind => {
  switch (facts.method) {
    case 'get':
      return 'read';
    case 'put':
    case 'patch':
      return 'update';
    case 'delete':
      return 'delete';
    default:
      return facts.success === 201 ? 'create' : 'action';
  }
};

export interface SpecificError {
  description: string;
  code?: ErrorCode;
  message?: string;
  /** The 422 example's `details`. */
  details?: { field: string; message: string }[];
}

type DomainErrors = Partial<Record<OperationKind, Partial<Record<'409' | '422', SpecificError>>>>;

const conflict = (description: string, message: string): SpecificError => ({ description: `\`CONFLICT\`: ${description}`, message });
const invalid = (description: string, field: string, message: string): SpecificError => ({
  description: `\`VALIDATION_ERROR\`: ${description}`,
  message: `Validation failed: ${field}`,
  details: [{ field, message }],
});
const COLUMN_SETTINGS_INVALID = invalid(
  '`settings.table` names no table of the project, `settings.source` no text column, or `settings.defaultValue` is not a valid value',
  'settings.defaultValue',
  'must be one of: red, green',
);
/** Rules that creates and updates of a group check alike. */
const onWrites = (errors: Partial<Record<'409' | '422', SpecificError>>): DomainErrors => ({ create: errors, update: errors });

/*
 * The 409s and 422s no schema can reveal: which unique keys a resource has (409 CONFLICT in docs/reliability.md#errors) and which
 * semantic rules its writes check. Kept in one table by resource group (tag) and kind of
 * operation, so that every group's rules can be read side by side; a group that is missing here
 * simply has none (reads, logs and metrics never answer 409 or 422).
 */
const DOMAIN_ERRORS: Record<string, DomainErrors> = {
  Accounts: { update: { '409': conflict('the email is used by another account', 'email is already used by another account') } },
  Projects: onWrites({ '422': invalid('`defaultLocale` is not one of `locales`', 'defaultLocale', 'must be one of locales (en, fr)') }),
  'Workspace Members': {
    create: { '409': conflict('the email is already a member of this workspace', 'email is already a member of this workspace') },
    update: { '409': conflict('the last OWNER cannot be demoted', 'The last OWNER of a workspace cannot be removed or demoted') },
    delete: { '409': conflict('the last OWNER cannot be removed', 'The last OWNER of a workspace cannot be removed or demoted') },
  },
  'Project Members': {
    create: {
      '409': conflict('the account is already a member of this project', 'account is already a member of this project'),
      '422': invalid('the account is not a member of the project’s workspace', 'email', 'must identify a member of the project’s workspace'),
    },
  },
  'API Keys': onWrites({ '422': invalid('`expiresAt` is not in the future', 'expiresAt', 'must be in the future') }),
  Tables: onWrites({ '409': conflict('the key is used by another table of this project', 'key is already used by another table of this project') }),
  Columns: {
    create: {
      '409': conflict('the name is taken, or the table already has a slug column, or existing rows violate the new column (e.g. required without a default)', 'name: a column named title already exists in this table'),
      '422': COLUMN_SETTINGS_INVALID,
    },
    update: {
      '409': conflict('the name is taken, or existing rows do not fit the new type or settings (the message names the first row ids)', 'settings.required: existing rows have no value for title: 0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a'),
      '422': COLUMN_SETTINGS_INVALID,
    },
  },
  Contents: {
    create: {
      '409': conflict('a value of a `unique` column is taken (the message names `data.<column>`)', 'data.sku: this value already exists in another row'),
      '422': invalid('`data` breaks the column rules (required, type, bounds, pattern, options, locales, references and files that do not exist) or `SCHEDULED` lacks a future `publishAt`; every offence is listed', 'data.title', 'is required'),
    },
    update: {
      '409': {
        description:
          '`CONFLICT` (a `unique` column value is taken) or `INVALID_TRANSITION` (the status change is not allowed from the current status, or `draft: true` on a row that is not PUBLISHED)',
        code: 'INVALID_TRANSITION',
        message: 'status cannot change from ARCHIVED to PUBLISHED (allowed: DRAFT)',
      },
      '422': invalid(
        '`data` breaks the column rules, a required column is cleared, `SCHEDULED` lacks a future `publishAt`, or a draft (`draft: true`) changes `status` or `publishAt`; every offence is listed',
        'data.title',
        'is required',
      ),
    },
    // Restoring a revision and publishing a draft write the row as an update does.
    action: {
      '409': {
        description: '`CONFLICT` (a `unique` column value is taken by another row now) or `INVALID_TRANSITION` (a draft of an ARCHIVED row cannot be published)',
        code: 'CONFLICT',
        message: 'data.sku: this value already exists in another row',
      },
      '422': invalid('the revision’s or the draft’s data breaks the column rules as they are now (e.g. a column required since); every offence is listed', 'data.note', 'is required'),
    },
  },
  Categories: onWrites({
    '409': conflict('the slug is used by another category of this project', 'slug: "news" is already used by another category of this project'),
    '422': invalid('`parentId` names no category of this project', 'parentId', 'no category with this id in the project'),
  }),
  Variables: onWrites({ '409': conflict('the key is used by another variable of this project', 'key: "SITE_NAME" is already used by another variable of this project') }),
  Translations: onWrites({
    '409': conflict('the project already has this key in this locale', 'key, locale: "home.title" already has a "fr" translation in this project'),
    '422': invalid('`locale` is not one of the project’s locales', 'locale', 'not a project locale (project locales: en, fr)'),
  }),
  Schema: {
    action: {
      '409': conflict(
        'apply: the plan holds destructive changes (drops, lossy conversions) and `allowDestructive` is not true; the message names each with its row count. Nothing is applied',
        'The plan holds destructive changes; apply with allowDestructive to make them: dropColumn posts.legacy (12 rows)',
      ),
      '422': invalid(
        'the snapshot is wrong on its own (names, settings, references, locales other than the project’s), a role’s rules do not fit it, or (apply) stored rows break a new constraint: required without values, unique with duplicates, values that do not convert to a new type; the detail names the column and the first rows. Nothing is applied',
        'tables.posts.columns.sku',
        'required: rows without a value: 0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a',
      ),
    },
  },
  Files: { delete: { '409': conflict('contents rows still reference the file', 'file is referenced by 2 contents rows; remove the references first') } },
  Webhooks: onWrites({ '422': invalid('`url` resolves to a loopback, private or link-local address (unless WEBHOOKS_ALLOW_PRIVATE)', 'url', 'resolves to a private address') }),
};

const BODY_METHODS = new Set(['post', 'put', 'patch']);

/**
 * Every error status an operation can answer, derived from what it is (in the order of docs/reliability.md#errors):
 * a credential → 401/403; ids in the path → 404; a query or body → 400; a body → 413/415;
 * the resource group's unique keys and semantic rules → 409/422; and, for every `/v1`
 * request, 429 (rate limit), 500 and 503 (database unreachable).
 */
export function errorsOf(facts: OperationFacts): Map<string, SpecificError | undefined> {
  const errors = new Map<string, SpecificError | undefined>();
  const hasBody = BODY_METHODS.has(facts.method);
  if (facts.hasQuery || hasBody) errors.set('400', undefined);
  if (facts.authenticated) {
    errors.set('401', undefined);
    errors.set('403', undefined);
  }
  if (facts.hasPathParams) errors.set('404', undefined);
  const kind = operationKind(facts);
  for (const tag of facts.tags) {
    for (const [status, specific] of Object.entries(DOMAIN_ERRORS[tag]?.[kind] ?? {})) errors.set(status, specific);
  }
  if (facts.conditional) errors.set('412', undefined);
  if (hasBody) {
    errors.set('413', undefined);
    errors.set('415', undefined);
  }
  for (const status of ['429', '500', '503']) errors.set(status, undefined);
  return new Map([...errors].sort(([a], [b]) => a.localeCompare(b)));
}
