import { Migration } from '@mikro-orm/migrations';

/**
 * Granting custom roles (docs/roles.md#granting-a-role): an API key holds a `permission` or a
 * role, a project member a built-in `role` or a custom one, exactly one of the two. The grant
 * references the role together with the project, so that the database itself refuses a role of
 * another project, and deleting a granted role fails (restrict) even when a grant races it.
 */
export class Migration20261129000000_role_grants extends Migration {
  override name = 'Migration20261129000000_role_grants';

  override up(): void {
    this.addSql(`
      alter table role add constraint role_id_project_key unique (id, project_id);

      alter table api_key alter column permission drop not null;
      alter table api_key add column role_id uuid null;
      alter table api_key add constraint api_key_role_fkey
        foreign key (role_id, project_id) references role (id, project_id) on delete restrict;
      alter table api_key add constraint api_key_grant_check check ((permission is null) <> (role_id is null));
      create index api_key_role_idx on api_key (role_id) where role_id is not null;

      alter table project_member alter column role drop not null;
      alter table project_member add column role_id uuid null;
      alter table project_member add constraint project_member_role_fkey
        foreign key (role_id, project_id) references role (id, project_id) on delete restrict;
      alter table project_member add constraint project_member_grant_check check ((role is null) <> (role_id is null));
      create index project_member_role_idx on project_member (role_id) where role_id is not null;
    `);
  }
}
