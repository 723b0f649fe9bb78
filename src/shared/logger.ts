import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs (pino). Secrets never reach a log line: the authorization header and
 * anything named like a secret are redacted wherever they appear.
 */
export function createLogger(level: string, name = 'tabula'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', '*.authorization', '*.token', '*.key', '*.secret', '*.accessToken'],
      censor: '[redacted]',
    },
  });
}
