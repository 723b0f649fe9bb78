import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * File buttons for a member holding a custom role (docs/console.md#what-a-member-sees): the file
 * library and the editor's file field offer upload, replace and delete only as the role's `$files`
 * rules allow, per file (`GET …/access/explain?table=$files`, docs/roles.md#explain).
 */
let run: ConsoleRun;
let seeded: Awaited<ReturnType<typeof seedProject>>;
let roleId: string;
let memberToken: string;
let postId: string;
let postsId: string;

const FILE_RULES = [
  { table: 'posts', actions: ['read', 'update'] },
  { table: '$files', actions: ['read'] },
  { table: '$files', actions: ['update', 'delete'], where: [{ i: 'name', w: 'startsWith', v: 'draft-' }] },
];

async function uploadAsAdmin(name: string): Promise<string> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a6ea5' } }).png().toBuffer();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), name);
  const res = await fetch(`${run.t.url}/v1/${seeded.projectId}/files`, { method: 'POST', headers: { authorization: `Bearer ${run.t.adminToken}` }, body: form });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function call(method: string, path: string, body: unknown) {
  const res = await run.t.call(method, path, { body });
  expect(res.status, res.text).toBeLessThan(300);
  return res.json;
}

/** Waits for the page's explain answers to be in, so that a button's absence is the answer's. */
const explained = (page: Page) => page.waitForResponse((response) => response.url().includes('access.explain'));

beforeAll(async () => {
  run = await openConsole();
  seeded = await seedProject(run.t);
  const p = `/v1/${seeded.projectId}`;
  postsId = (await call('POST', `${p}/tables`, { key: 'posts', name: 'Posts', defaultStatus: 'DRAFT' })).id;
  await call('POST', `${p}/tables/posts/columns`, { name: 'title', label: 'Title', type: 'text' });
  await call('POST', `${p}/tables/posts/columns`, { name: 'cover', label: 'Cover', type: 'file' });
  await uploadAsAdmin('draft-sketch.png');
  const final = await uploadAsAdmin('final.png');
  postId = (await call('POST', `${p}/tables/posts/contents`, { data: { title: 'Launch', cover: final } })).id;
  roleId = (await call('POST', `${p}/roles`, { name: 'Draft artist', rules: FILE_RULES })).id;
  const invited = await call('POST', `/v1/workspaces/${seeded.workspaceId}/members`, { email: 'artist@example.com', role: 'MEMBER' });
  memberToken = invited.accessToken;
  await call('POST', `/v1/workspaces/${seeded.workspaceId}/projects/${seeded.projectId}/members`, { email: 'artist@example.com', role: roleId });
  await signIn(run, memberToken);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('file buttons under a custom role', () => {
  it(
    'shows replace and delete only on the files its rules let it change, upload only with a create rule, in the library and the editor',
    async () => {
      const { page } = run;
      const answered = explained(page);
      await page.goto(`${seeded.base}/files`);
      const grid = page.getByRole('list', { name: 'Files' });
      await grid.getByRole('button', { name: /^final\.png/ }).waitFor();
      await answered;
      expect(await page.getByRole('button', { name: 'Upload files' }).count()).toBe(0);

      // A draft- file, opened with the keyboard: replace and delete are offered.
      await grid.getByRole('button', { name: /^draft-sketch\.png/ }).focus();
      await page.keyboard.press('Enter');
      const draft = page.getByRole('dialog', { name: 'draft-sketch.png' });
      await draft.getByRole('button', { name: 'Replace…' }).waitFor();
      await draft.getByRole('button', { name: 'Delete' }).waitFor();
      await expectAccessibleInBothThemes(page, 'file details under a custom role', 'file-rights-details');
      await draft.getByRole('button', { name: 'Close' }).click();

      // Another file, with the mouse: only read.
      const fileAnswer = explained(page);
      await grid.getByRole('button', { name: /^final\.png/ }).click();
      const final = page.getByRole('dialog', { name: 'final.png' });
      await fileAnswer;
      await final.getByRole('heading', { name: 'Used by' }).waitFor();
      expect(await final.getByRole('button', { name: 'Replace…' }).count()).toBe(0);
      expect(await final.getByRole('button', { name: 'Delete' }).count()).toBe(0);
      await final.getByRole('button', { name: 'Close' }).click();

      // The editor's file field: the file shown, no upload (the role creates no file).
      const editorAnswer = explained(page);
      await page.goto(`${seeded.base}/tables/${postsId}/rows/${postId}`);
      await page.getByRole('img', { name: 'Preview of final.png' }).waitFor();
      await editorAnswer;
      expect(await page.getByRole('button', { name: /^(Upload|Replace) Cover$/ }).count()).toBe(0);
      await page.getByRole('button', { name: 'Remove final.png from Cover' }).waitFor();
      await expectAccessibleInBothThemes(page, 'the editor’s file field under a custom role', 'file-rights-editor');

      // Given a create rule, the role uploads: the buttons come with it.
      await call('PUT', `/v1/${seeded.projectId}/roles/${roleId}`, { rules: [...FILE_RULES, { table: '$files', actions: ['create'] }] });
      await page.reload();
      await page.getByRole('button', { name: 'Replace Cover' }).waitFor();
      await page.goto(`${seeded.base}/files`);
      await page.getByRole('button', { name: 'Upload files' }).waitFor();
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
