import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, screenshot, SCREENSHOTS, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * The file library (docs/console.md#file-library): grid and list, search, several uploads at once
 * with their progress, a file's "used by", replace and delete; and how long a library of 10,000
 * files takes to be interactive (reported, not asserted).
 */
const SEEDED_FILES = 10_000;

let run: ConsoleRun;
let seeded: Awaited<ReturnType<typeof seedProject>>;
beforeAll(async () => {
  run = await openConsole();
  seeded = await seedProject(run.t);
  // 10,000 file records, older than anything uploaded by the test: their bytes are never read
  // (the library pages records; only images get thumbnails, and these are PDFs).
  const db = new pg.Client({ connectionString: run.t.db.url });
  await db.connect();
  try {
    await db.query(
      `insert into file (id, project_id, storage_project_id, name, mime_type, size, sha256, storage_driver, storage_key, created_at, updated_at)
       select gen_random_uuid(), $1, $1, 'report-' || lpad(n::text, 5, '0') || '.pdf', 'application/pdf', 1000 + n, repeat('0', 64), 'local', 'seeded-' || n,
              now() - interval '1 day' - n * interval '1 second', now() - interval '1 day'
         from generate_series(1, $2) as n`,
      [seeded.projectId, SEEDED_FILES],
    );
    // Statistics as a live database keeps them (autovacuum's analyze), so that the plan is the steady one.
    await db.query('analyze file');
  } finally {
    await db.end();
  }
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

const png = (r: number) => sharp({ create: { width: 64, height: 48, channels: 3, background: { r, g: 90, b: 160 } } }).png().toBuffer();

describe('file library', () => {
  it(
    `is interactive with ${SEEDED_FILES.toLocaleString('en')} files (time reported), uploads several with progress, searches, shows where a file is used, replaces and deletes`,
    async () => {
      const { page, t } = run;
      const started = Date.now();
      await page.goto(`${seeded.base}/files`);
      const grid = page.getByRole('list', { name: 'Files' });
      const first = grid.getByRole('button').first();
      // On the page's clock, checked at every frame: when the first file could take the focus
      // (the locator's own waiting retries at growing intervals, up to 500 ms late).
      const firstCardMs = await page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const page = globalThis as unknown as { document: { querySelector(selector: string): unknown }; requestAnimationFrame(callback: () => void): void; performance: { now(): number } };
            const check = () => (page.document.querySelector('ul[aria-label="Files"] button') ? resolve(Math.round(page.performance.now())) : page.requestAnimationFrame(check));
            check();
          }),
      );
      await first.focus();
      const interactive = Date.now() - started;
      await page.getByText(`${SEEDED_FILES.toLocaleString('en')} items`).or(page.getByText(`${SEEDED_FILES} items`)).waitFor();
      // Where the time went, on the page's clock: when the list call left and how long it took.
      const timeline = await page.evaluate(() => {
        const call = performance.getEntriesByType('resource').find((entry) => entry.name.includes('files.list'))!;
        return { listCallStartMs: Math.round(call.startTime), listCallMs: Math.round(call.duration) };
      });
      // From the sidebar, the console loaded: another page, then the library again (its chunk cached, its list read anew).
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Categories' }).click();
      await page.getByRole('heading', { name: 'Categories', level: 1 }).waitFor();
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'File library' }).click();
      await first.waitFor();
      const perf = { files: SEEDED_FILES, interactiveMs: interactive, firstCardMs, ...timeline, loadAverage: loadavg()[0], at: new Date().toISOString() };
      console.log(`file library: ${SEEDED_FILES} files, first page interactive ${interactive} ms after goto`, perf);
      await writeFile(`${SCREENSHOTS}/files-perf.json`, `${JSON.stringify(perf, null, 2)}\n`);

      // Three files at once, each with its progress.
      const [cover, banner] = [await png(200), await png(40)];
      await page.locator('input[type=file]').setInputFiles([
        { name: 'cover.png', mimeType: 'image/png', buffer: cover },
        { name: 'banner.png', mimeType: 'image/png', buffer: banner },
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('notes '.repeat(50_000)) },
      ]);
      const uploads = page.getByRole('region', { name: 'Uploads' });
      await uploads.getByText('3 of 3 uploaded.').waitFor();
      expect(await uploads.getByRole('progressbar').count()).toBe(3);
      for (const name of ['cover.png', 'banner.png', 'notes.txt']) expect(await uploads.getByRole('progressbar', { name: `Upload of ${name}` }).getAttribute('value')).not.toBe('0');
      // Newest first: the uploads lead the grid, the images with their thumbnails.
      await grid.getByRole('button', { name: /^cover\.png/ }).locator('img').waitFor();
      await screenshot(page, 'file-library');

      // A row uses cover.png.
      const files = (await t.call('GET', `/v1/${seeded.projectId}/files?search=.png`)).json.list as { id: string; name: string; sha256: string }[];
      const coverFile = files.find((f) => f.name === 'cover.png')!;
      const table = await t.call('POST', `/v1/${seeded.projectId}/tables`, { body: { key: 'posts', name: 'Posts' } });
      await t.call('POST', `/v1/${seeded.projectId}/tables/posts/columns`, { body: { name: 'image', type: 'file' } });
      const post = await t.call('POST', `/v1/${seeded.projectId}/tables/posts/contents`, { body: { data: { image: coverFile.id } } });
      expect(post.status, post.text).toBe(201);

      // Search by name, typed.
      await page.getByLabel('Search files by name').fill('.png');
      await expect.poll(() => grid.getByRole('button').count()).toBe(2);

      // The list view, with the keyboard.
      await page.getByRole('button', { name: 'List' }).focus();
      await page.keyboard.press('Enter');
      const list = page.getByRole('table', { name: 'Files' });
      await list.getByRole('row', { name: /cover\.png/ }).waitFor();
      expect(page.url()).toContain('view=list');
      await expectAccessibleInBothThemes(page, 'file library (list)', 'file-library-list');

      // Details of cover.png: used by the post, opened by the keyboard.
      await list.getByRole('button', { name: 'cover.png' }).focus();
      await page.keyboard.press('Enter');
      const details = page.getByRole('dialog', { name: 'cover.png' });
      const used = details.getByRole('list', { name: 'Rows using this file' });
      await used.getByRole('link', { name: `Posts: ${post.json.id}` }).waitFor();
      expect(await used.getByRole('link').getAttribute('href')).toBe(`/admin/w/${seeded.workspaceId}/p/${seeded.projectId}/tables/${table.json.id}/rows/${post.json.id}`);
      await expectAccessibleInBothThemes(page, 'file library: details', 'file-library-details');

      // Replace its bytes: same id, new hash.
      await details.locator('input[type=file]').setInputFiles({ name: 'cover-v2.png', mimeType: 'image/png', buffer: await png(10) });
      await expect.poll(async () => (await t.call('GET', `/v1/${seeded.projectId}/files/${coverFile.id}`)).json.sha256).not.toBe(coverFile.sha256);

      // Deleting a used file is refused, said in the dialog.
      await details.getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete “cover.png”?' });
      await confirm.getByRole('button', { name: 'Delete file' }).click();
      await confirm.getByRole('alert').waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await details.getByRole('button', { name: 'Close' }).click();
      await details.waitFor({ state: 'detached' });

      // An unused one goes.
      await list.getByRole('button', { name: 'banner.png' }).click();
      const bannerDetails = page.getByRole('dialog', { name: 'banner.png' });
      await bannerDetails.getByText('No row you can read uses this file.').waitFor();
      await bannerDetails.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog', { name: 'Delete “banner.png”?' }).getByRole('button', { name: 'Delete file' }).click();
      await list.getByRole('row', { name: /banner\.png/ }).waitFor({ state: 'detached' });

      // Back to the grid, every file, both themes.
      await page.getByLabel('Search files by name').fill('');
      await page.getByRole('button', { name: 'Grid' }).click();
      await grid.getByRole('button', { name: /^cover\.png/ }).waitFor();
      await expect.poll(() => grid.getByRole('button').count()).toBe(48);
      expect(page.url()).not.toContain('view=list');
      await expectAccessibleInBothThemes(page, 'file library (grid)', 'file-library');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS * 2,
  );
});
