/**
 * The typed client end to end: a workspace, a project, a table with columns, a few rows, and a
 * filtered, sorted, localized list. Run it against a running Tabula:
 *
 *   TABULA_URL=http://127.0.0.1:3000 TABULA_TOKEN=tat_… npx tsx examples/typed-client.ts
 *
 * TABULA_TOKEN is an account token (the one `npm start` printed, or
 * `npm run cli -- token create --email you@example.com`): creating workspaces needs a person.
 *
 * In an application of your own the import is `from '@tabula/client'` (client/README.md says how
 * to install it); inside this repository the same client is `tabula/client`.
 */
import { createTabulaClient, TabulaError } from 'tabula/client';

const baseUrl = process.env.TABULA_URL ?? 'http://127.0.0.1:3000';
const token = process.env.TABULA_TOKEN;
if (!token) {
  process.stderr.write('Set TABULA_TOKEN to an account token (tat_…); npm run cli -- token create --email you@example.com prints one.\n');
  process.exit(2);
}

const tabula = createTabulaClient({ baseUrl, token });

try {
  const workspace = await tabula.workspaces.create.mutate({ name: 'Example shop' });
  const project = await tabula.projects.create.mutate({ workspaceId: workspace.id, name: 'Catalogue', locales: ['en', 'de'] });
  const projectId = project.id;
  console.log(`project ${projectId} in workspace ${workspace.id}`);

  const table = await tabula.tables.create.mutate({ projectId, key: 'products', name: 'Products' });
  // Columns one after the other: their order is the order they were added in.
  await tabula.columns.create.mutate({ projectId, tableId: table.key, name: 'name', type: 'text', settings: { required: true, localized: true } });
  await tabula.columns.create.mutate({ projectId, tableId: table.key, name: 'price', type: 'number', settings: { required: true, min: 0 } });
  await tabula.columns.create.mutate({ projectId, tableId: table.key, name: 'category', type: 'select', settings: { options: ['kitchen', 'garden'] } });
  console.log('table products: name (localized text), price (number), category (select)');

  const products = [
    { name: { en: 'Teapot', de: 'Teekanne' }, price: 35, category: 'kitchen' },
    { name: { en: 'Mug', de: 'Becher' }, price: 9, category: 'kitchen' },
    { name: { en: 'Stand mixer', de: 'Küchenmaschine' }, price: 320, category: 'kitchen' },
    { name: { en: 'Watering can', de: 'Gießkanne' }, price: 19, category: 'garden' },
  ];
  // Calls made together travel in one HTTP request (the client batches them).
  await Promise.all(products.map((data) => tabula.contents.create.mutate({ projectId, tableId: 'products', data })));
  console.log(`created ${products.length} products`);

  const page = await tabula.contents.list.query({
    projectId,
    tableId: 'products',
    filter: JSON.stringify([
      { i: 'category', w: 'eq', v: 'kitchen' },
      { i: 'price', w: 'lt', v: 100 },
    ]),
    sort: JSON.stringify([{ i: 'price', o: 'desc' }]),
    locale: 'de',
  });
  console.log(`kitchen products under 100, most expensive first (de): ${page.pagination.total} found`);
  for (const row of page.list) console.log(`  ${String(row.data?.name)}  ${String(row.data?.price)}`);

  // Errors are typed: the SPEC code, the HTTP status, and for 422 every offending field.
  try {
    await tabula.contents.create.mutate({ projectId, tableId: 'products', data: { price: -1 } });
  } catch (error) {
    if (!(error instanceof TabulaError) || error.code !== 'VALIDATION_ERROR') throw error;
    console.log(`refused (${error.status} ${error.code}): ${error.details?.map((d) => `${d.field} ${d.message}`).join('; ')}`);
  }
} catch (error) {
  if (!(error instanceof TabulaError)) throw error;
  process.stderr.write(`Tabula answered ${error.status} ${error.code}: ${error.message}\n`);
  process.exit(1);
}
