/**
 * The practical ceiling for Node on this machine: a minimal node:http + pg handler over the
 * same `contents` rows, with no framework, no auth, no validation beyond the minimum and a
 * naive `count(*)` for list totals (the way most hand-written APIs do it). The benchmark runs
 * the same queries against it and against Tabula, in the same run.
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The price expression exactly as Tabula indexes it (guarded cast), so both use the same index. */
const PRICE = `(case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end)`;

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const tableId = process.env.BENCH_TABLE_ID!;
const projectId = process.env.BENCH_PROJECT_ID!;

const LIST = 'select id, status, slug, data, created_at, updated_at, published_at, publish_at from contents';

function send(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function list(where: string, values: unknown[], order: string, size: number, page: number, count: boolean) {
  const offset = (page - 1) * size;
  const [rows, total] = await Promise.all([
    pool.query(`${LIST} where ${where} order by ${order} limit ${size} offset ${offset}`, values),
    count ? pool.query(`select count(*)::int as n from contents where ${where}`, values) : null,
  ]);
  return { list: rows.rows, pagination: { page, size, total: total ? total.rows[0].n : null } };
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url!, 'http://x');
    const count = url.searchParams.get('count') !== 'false';
    const base = 'table_id = $1';
    switch (url.pathname) {
      case '/q1': {
        const { rows } = await pool.query(`${LIST} where table_id = $1 and id = $2`, [tableId, url.searchParams.get('id')]);
        return rows[0] ? send(res, 200, rows[0]) : send(res, 404, { error: 'not found' });
      }
      case '/q2':
        return send(res, 200, await list(base, [tableId], 'created_at desc, id desc', 20, 1, count));
      case '/q3':
        return send(
          res,
          200,
          await list(
            `${base} and (data->>'category') = $2 and ${PRICE} between $3 and $4`,
            [tableId, 'c', 100, 500],
            `${PRICE} asc, id asc`,
            20,
            3,
            count,
          ),
        );
      case '/q4':
        return send(res, 200, await list(`${base} and (data->>'title') ilike $2`, [tableId, '%lorem 12%'], 'created_at desc, id desc', 20, 1, count));
      case '/q5':
        return send(res, 200, await list(base, [tableId], 'created_at desc, id desc', 1000, 1, false));
      case '/w1': {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: Record<string, unknown> };
        if (!body.data || typeof body.data.title !== 'string') return send(res, 422, { error: 'title required' });
        const { rows } = await pool.query(
          `insert into contents (id, project_id, table_id, status, data, created_at, updated_at, published_at)
           values ($1, $2, $3, 'PUBLISHED', $4, now(), now(), now()) returning *`,
          [randomUUID(), projectId, tableId, body.data],
        );
        return send(res, 201, rows[0]);
      }
      default:
        return send(res, 404, { error: 'no route' });
    }
  } catch (error) {
    send(res, 500, { error: String(error) });
  }
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
