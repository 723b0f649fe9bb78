import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import type { ProjectInfo } from '../projects/project-directory.js';
import { findPage } from '../../db/find-page.js';
import { conflict, fieldInvalid, notFound } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import { TranslationSchema, type Translation } from './translation.entity.js';
import type { CreateTranslationInput, ListTranslationsInput, TranslationOutput, UpdateTranslationInput } from './translation.schema.js';

export const toTranslationOutput = (t: Translation): TranslationOutput => ({
  id: t.id,
  key: t.key,
  locale: t.locale,
  value: t.value,
  createdAt: iso(t.createdAt),
  updatedAt: iso(t.updatedAt),
});

export async function listTranslations(em: EntityManager, projectId: string, params: ListTranslationsInput) {
  const where = {
    project: projectId,
    ...(params.locale === undefined ? {} : { locale: params.locale }),
    ...(params.key === undefined ? {} : { key: params.key }),
  };
  return findPage(em, TranslationSchema, where, params, { orderBy: { createdAt: 'asc', id: 'asc' } }, toTranslationOutput);
}

export async function findTranslation(em: EntityManager, projectId: string, translationId: string): Promise<Translation> {
  const translation = isUuid(translationId)
    ? await em.findOne(TranslationSchema, { id: translationId.toLowerCase(), project: projectId })
    : null;
  if (!translation) throw notFound('Translation');
  return translation;
}

function checkLocale(project: ProjectInfo, locale: string | undefined): void {
  if (locale !== undefined && !project.locales.includes(locale)) {
    throw fieldInvalid('locale', `not a project locale (project locales: ${project.locales.join(', ')})`);
  }
}

/** (key, locale) taken is 409 naming the fields (docs/resources.md#translations). */
async function flushUnique(em: EntityManager, t: { key: string; locale: string }): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw conflict(`key, locale: "${t.key}" already has a "${t.locale}" translation in this project`);
    }
    throw error;
  }
}

export async function createTranslation(em: EntityManager, project: ProjectInfo, input: CreateTranslationInput): Promise<Translation> {
  checkLocale(project, input.locale);
  const translation = em.create(TranslationSchema, { project: project.id, key: input.key, locale: input.locale, value: input.value });
  await flushUnique(em, translation);
  return translation;
}

export async function updateTranslation(
  em: EntityManager,
  project: ProjectInfo,
  translation: Translation,
  input: UpdateTranslationInput,
): Promise<Translation> {
  checkLocale(project, input.locale);
  if (input.key !== undefined) translation.key = input.key;
  if (input.locale !== undefined) translation.locale = input.locale;
  if (input.value !== undefined) translation.value = input.value;
  await flushUnique(em, translation);
  return translation;
}

export async function deleteTranslation(em: EntityManager, translation: Translation): Promise<void> {
  await em.remove(translation).flush();
}
