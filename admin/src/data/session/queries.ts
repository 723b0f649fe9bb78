import { useApi } from '../api.js';
import { sessionKeys } from './keys.js';

/** The signed-in account (its id and email). */
export function useMe() {
  return useApi(sessionKeys.me(), (client) => client.accounts.me.query({}));
}
