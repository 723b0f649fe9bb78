import { z } from 'zod';
import { emailString, isoDate, nameString } from '../../shared/schemas.js';

export const accountOutput = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string(),
  createdAt: isoDate,
});
export type AccountOutput = z.infer<typeof accountOutput>;

export const updateAccountInput = z.object({
  name: nameString.optional(),
  email: emailString.optional(),
});
export type UpdateAccountInput = z.infer<typeof updateAccountInput>;
