/** How a revision is named to people: its action and status in words, who made it, when. */

const ACTIONS: Record<string, string> = {
  created: 'Created',
  updated: 'Edited',
  published: 'Published',
  unpublished: 'Unpublished',
  scheduled: 'Scheduled',
  archived: 'Archived',
  restored: 'Restored an earlier version',
  draftPublished: 'Published the draft',
};

export const actionLabel = (action: string): string => ACTIONS[action] ?? action;

const STATUSES: Record<string, string> = { DRAFT: 'Draft', SCHEDULED: 'Scheduled', PUBLISHED: 'Published', ARCHIVED: 'Archived' };

export const statusLabel = (status: string): string => STATUSES[status] ?? status;

/** The badge class of styles.css for a status. */
export const statusBadge = (status: string): string => `badge badge-${status.toLowerCase()}`;

export interface Actor {
  type: 'account' | 'apiKey';
  id: string;
}

/** Names the console knows: accounts of the workspace by id, the project's API keys by id. */
export interface ActorNames {
  me?: string;
  accounts: Map<string, string>;
  apiKeys: Map<string, string>;
}

export function actorLabel(actor: Actor | null, names: ActorNames): string {
  // Revisions recorded before actors were kept carry none.
  if (!actor) return 'someone (not recorded)';
  if (actor.type === 'account') {
    if (actor.id === names.me) return 'you';
    return names.accounts.get(actor.id) ?? `account ${actor.id.slice(0, 8)}`;
  }
  const key = names.apiKeys.get(actor.id);
  return key ? `API key “${key}”` : `API key ${actor.id.slice(0, 8)}`;
}

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export const formatWhen = (iso: string): string => when.format(new Date(iso));
