import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config/config.js';
import { runSql } from '../../db/sql.js';
import { sha256 } from '../../shared/secrets.js';
import type { Logger } from '../../shared/logger.js';
import { AccountSchema, AccountTokenSchema } from './account.entity.js';
import { lockBootstrap } from './account.sql.js';
import { addAccountToken, findOrCreateAccount } from './account.service.js';

/**
 * The first account (docs/configuration.md, ADMIN_EMAIL). With ADMIN_EMAIL (and optionally ADMIN_TOKEN) the account and token
 * exist after start-up, however often it runs. With neither set and no account at all, an
 * `admin@localhost` account is created and its random token printed once. Answers whether it
 * printed a token (the start-up banner then points at it instead of at the CLI).
 */
export async function bootstrapAdmin(em: EntityManager, config: Config, logger: Logger): Promise<boolean> {
  // One start-up at a time: two processes booting together must not both create the admin.
  return em.transactional(async (tx) => {
    await runSql(tx, lockBootstrap());
    if (config.ADMIN_EMAIL) {
      const { account, created } = await findOrCreateAccount(tx, config.ADMIN_EMAIL, 'Admin');
      if (config.ADMIN_TOKEN) {
        const known = await tx.findOne(AccountTokenSchema, { tokenHash: sha256(config.ADMIN_TOKEN) });
        if (known && known.account.id !== account.id) {
          throw new Error('ADMIN_TOKEN already belongs to another account');
        }
        if (!known) addAccountToken(tx, account, config.ADMIN_TOKEN);
      } else if (created) {
        const token = addAccountToken(tx, account);
        printToken(logger, account.email, token);
        return true;
      }
      return false;
    }
    if ((await tx.count(AccountSchema, {})) > 0) return false;
    const { account } = await findOrCreateAccount(tx, 'admin@localhost', 'Admin');
    printToken(logger, account.email, addAccountToken(tx, account));
    return true;
  });
}

function printToken(logger: Logger, email: string, token: string): void {
  // The one place a secret is printed, on purpose: it cannot be recovered later.
  // Worded without "above" or "below": the token goes straight to stdout, the log line through
  // pino's buffer, so which one a terminal shows first is not fixed.
  process.stdout.write(`\n  Admin account: ${email}\n  Admin token:   ${token}\n\n`);
  logger.warn({ email }, 'created the first account; its token is shown once, on the "Admin token:" line');
}
