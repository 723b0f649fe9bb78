import { Migration } from '@mikro-orm/migrations';

/** Accounts, tokens, workspaces, projects and their members (issue #2). */
export class Migration20261122000000_foundation extends Migration {
  override name = 'Migration20261122000000_foundation';

  override up(): void {
    this.addSql(`
      create table account (
        id uuid primary key,
        email text not null,
        name text not null default '',
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index account_email_key on account (email);

      create table account_token (
        id uuid primary key,
        account_id uuid not null references account (id) on delete cascade,
        token_hash bytea not null,
        prefix text not null,
        created_at timestamptz not null,
        last_used_at timestamptz null
      );
      create unique index account_token_hash_key on account_token (token_hash);
      create index account_token_account_idx on account_token (account_id);

      create table workspace (
        id uuid primary key,
        name text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz null
      );

      create table workspace_member (
        id uuid primary key,
        workspace_id uuid not null references workspace (id) on delete cascade,
        account_id uuid not null references account (id) on delete cascade,
        role text not null check (role in ('OWNER', 'ADMIN', 'MEMBER')),
        created_at timestamptz not null
      );
      create unique index workspace_member_key on workspace_member (workspace_id, account_id);
      create index workspace_member_account_idx on workspace_member (account_id);

      create table project (
        id uuid primary key,
        workspace_id uuid not null references workspace (id) on delete cascade,
        name text not null,
        description text not null default '',
        locales text[] not null,
        default_locale text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz null
      );
      create index project_workspace_idx on project (workspace_id, id);

      create table project_member (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        account_id uuid not null references account (id) on delete cascade,
        role text not null check (role in ('ADMIN', 'EDITOR', 'VIEWER')),
        created_at timestamptz not null
      );
      create unique index project_member_key on project_member (project_id, account_id);
      create index project_member_account_idx on project_member (account_id);
    `);
  }
}
