import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** A client's id is echoed only when it is a safe token of at most 128 characters (docs/concepts.md#conventions). */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  const id = given && SAFE_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  res.locals.requestId = id;
  next();
};
