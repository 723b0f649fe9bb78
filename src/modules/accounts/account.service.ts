import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { ACCOUNT_TOKEN_PREFIX, DISPLAY_PREFIX_LENGTH, generateSecret, sha256 } from '../../shared/secrets.js';
import { conflict, notFound } from '../../errors/app-error.js';
import { iso } from '../../shared/schemas.js';
import { AccountSchema, AccountTokenSchema, type Account } from './account.entity.js';
import type { AccountOutput, UpdateAccountInput } from './account.schema.js';

export const toAccountOutput = (a: Account): AccountOutput => ({
  id: a.id,
  email: a.email,
  name: a.name,
  createdAt: iso(a.createdAt),
});

export async function getAccount(em: EntityManager, accountId: string): Promise<Account> {
  const account = await em.findOne(AccountSchema, { id: accountId });
  if (!account) throw notFound('Account');
  return account;
}

export async function updateAccount(em: EntityManager, accountId: string, input: UpdateAccountInput): Promise<Account> {
  const account = await getAccount(em, accountId);
  if (input.name !== undefined) account.name = input.name;
  if (input.email !== undefined) account.email = input.email;
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict('email is already used by another account');
    throw error;
  }
  return account;
}

/** Persists (without flushing) a new token for the account; returns the secret, shown once. */
export function addAccountToken(em: EntityManager, account: Account, secret = generateSecret(ACCOUNT_TOKEN_PREFIX)): string {
  em.create(AccountTokenSchema, {
    account,
    tokenHash: sha256(secret),
    prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
  });
  return secret;
}

/** Finds the account by e-mail or persists a new one (not flushed). */
export async function findOrCreateAccount(em: EntityManager, email: string, name = ''): Promise<{ account: Account; created: boolean }> {
  const normalized = email.toLowerCase();
  const existing = await em.findOne(AccountSchema, { email: normalized });
  if (existing) return { account: existing, created: false };
  return { account: em.create(AccountSchema, { email: normalized, name: name || normalized.split('@')[0] }), created: true };
}

/** `npm run cli -- token create --email E`: a new token for the account, created if needed. */
export async function createTokenForEmail(em: EntityManager, email: string): Promise<{ account: Account; token: string }> {
  const { account } = await findOrCreateAccount(em, email);
  const token = addAccountToken(em, account);
  await em.flush();
  return { account, token };
}
