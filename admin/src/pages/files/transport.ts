import type { FileTransport } from 'tabula/client';
import { apiOrigin, CONSOLE_HEADERS, useToken } from '../../data/session/session.js';

/** The typed client's file calls' transport: the API's origin and the signed-in token. */
export function useFileTransport(): FileTransport {
  return { baseUrl: apiOrigin(), token: useToken(), headers: CONSOLE_HEADERS };
}
