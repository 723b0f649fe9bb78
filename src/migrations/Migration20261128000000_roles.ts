import { Migration } from '@mikro-orm/migrations';

/**
 * Custom roles of a project (docs/roles.md): a name unique per project and the rules as JSON.
 * Nothing references a role yet, so a delete removes the row.
 */
export class Migration20261128000000_roles extends Migration {
  override name = 'Migration20261128000000_roles';

  override up(): void {
    this.addSql(`
      create table role (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        name text not null,
        description text not null default '',
        rules jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index role_name on role (project_id, name);
      create index role_project_idx on role (project_id, created_at, id);
    `);
  }
}
