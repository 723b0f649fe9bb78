import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { boundLine, redactCredentials, serializeError } from './log-safety.js';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  format?: LogFormat;
  /** Where lines go: a file descriptor (1 stdout, 2 stderr) or a stream. Default stdout. */
  destination?: 1 | 2 | NodeJS.WritableStream;
}

/**
 * JSON lines for machines (production, CI, tests, anything piped), readable lines for a developer
 * at a terminal. `LOG_FORMAT` decides when set.
 */
export function logFormat(config: { LOG_FORMAT?: LogFormat; NODE_ENV: string }, isTTY = Boolean(process.stdout.isTTY)): LogFormat {
  if (config.LOG_FORMAT) return config.LOG_FORMAT;
  return config.NODE_ENV !== 'production' && isTTY ? 'pretty' : 'json';
}

/**
 * Structured logs (pino). Secrets never reach a log line: the authorization header and
 * anything named like a secret are redacted wherever they appear, so are keys and tokens (and
 * `access_token=` values) inside any text of the line, errors are logged as a few
 * fields (never the driver's client or socket), and a line stays under 2 KB (log-safety.ts).
 */
export function createLogger(level: string, name = 'tabula', options: LoggerOptions = {}): Logger {
  const settings = {
    name,
    level,
    redact: {
      // `*.x` only reaches one level down, so the top-level names are listed as well.
      paths: [
        'req.headers.authorization',
        ...['authorization', 'token', 'key', 'secret', 'accessToken'].flatMap((field) => [field, `*.${field}`]),
      ],
      censor: '[redacted]',
    },
    serializers: { err: serializeError, error: serializeError },
    // Every line, whatever put a URL or header in it: no credential is written (log-safety.ts).
    hooks: { streamWrite: (line: string) => boundLine(redactCredentials(line)) },
  };
  const destination = options.destination ?? 1;
  if (options.format === 'pretty') {
    const colorize = typeof destination === 'number' && Boolean((destination === 1 ? process.stdout : process.stderr).isTTY);
    // In this thread and synchronous: a line is on the terminal before the next statement runs,
    // so it stays in order with what the process writes to stdout directly (the admin token).
    return pino(settings, pretty({ destination, sync: true, colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  }
  // stdout: pino's own default (buffered, flushed on exit). stderr is the CLI's log channel, where
  // lines must not lag behind its own messages.
  if (destination === 1) return pino(settings);
  const stream: DestinationStream = destination === 2 ? pino.destination({ fd: 2, sync: true }) : destination;
  return pino(settings, stream);
}
