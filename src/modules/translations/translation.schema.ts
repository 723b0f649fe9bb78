import { z } from 'zod';
import { isoDate, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';

export const translationOutput = z.object({
  id: z.uuid(),
  key: z.string(),
  locale: z.string(),
  value: z.string(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type TranslationOutput = z.infer<typeof translationOutput>;

const projectPath = { projectId: pathId('Project id') };
const translationPath = { ...projectPath, translationId: pathId('Translation id') };

/** Message keys are free text (`home.title`, or a source sentence as gettext does). */
const key = z.string().min(1).max(500).describe('Message key; (key, locale) is unique per project');
const locale = z.string().min(1).max(35).describe('One of the project locales (422 otherwise)');
const value = z.string().max(100_000).describe('The translated text');

export const listTranslationsInput = z.object({
  ...projectPath,
  ...pageParams,
  locale: z.string().max(35).optional().describe('Only this locale'),
  key: z.string().max(500).optional().describe('Only this key'),
});
export type ListTranslationsInput = z.infer<typeof listTranslationsInput>;
export const translationListOutput = listOf(translationOutput);

export const createTranslationInput = z.object({ ...projectPath, key, locale, value });
export type CreateTranslationInput = z.infer<typeof createTranslationInput>;

export const updateTranslationInput = z.object({
  ...translationPath,
  key: key.optional(),
  locale: locale.optional(),
  value: value.optional(),
});
export type UpdateTranslationInput = z.infer<typeof updateTranslationInput>;

export const translationIdInput = z.object(translationPath);
