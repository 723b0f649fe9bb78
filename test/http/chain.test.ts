import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chain } from '../../src/http/chain.js';

let server: Server;
let base: string;

const mark = (name: string): RequestHandler => (_req, res, next) => {
  res.append('x-seen', name);
  next();
};

beforeAll(async () => {
  const app = express();
  app.use('/ok', chain([mark('a'), mark('b'), (_req, res) => void res.json({ done: true })]));
  app.use('/through', chain([mark('a'), mark('b')]));
  app.use('/through', (_req, res) => void res.json({ after: true }));
  app.use('/thrown', chain([mark('a'), () => { throw new Error('thrown'); }, mark('never')]));
  app.use('/rejected', chain([mark('a'), async () => { throw new Error('rejected'); }, mark('never')]));
  app.use('/passed', chain([(_req, _res, next) => next(new Error('passed')), mark('never')]));
  const onError: ErrorRequestHandler = (error: Error, _req, res, _next) => void res.status(500).json({ error: error.message });
  app.use(onError);
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const get = async (path: string) => {
  const res = await fetch(base + path);
  return { status: res.status, seen: res.headers.get('x-seen'), body: await res.json() };
};

describe('chain', () => {
  it('runs the handlers in order; the last one may answer', async () => {
    expect(await get('/ok')).toEqual({ status: 200, seen: 'a, b', body: { done: true } });
  });

  it('passes on to the next express layer after the last handler', async () => {
    expect(await get('/through')).toEqual({ status: 200, seen: 'a, b', body: { after: true } });
  });

  it('sends thrown, rejected and passed errors to the error handler, skipping the rest', async () => {
    expect(await get('/thrown')).toEqual({ status: 500, seen: 'a', body: { error: 'thrown' } });
    expect(await get('/rejected')).toEqual({ status: 500, seen: 'a', body: { error: 'rejected' } });
    expect(await get('/passed')).toEqual({ status: 500, seen: null, body: { error: 'passed' } });
  });
});
