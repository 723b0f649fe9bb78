/**
 * `updatedAt` of a new row: its `createdAt` (set just before it, as entities list `createdAt`
 * first), not a second reading of the clock that can be a millisecond later, which would make a
 * row that was never changed look updated after it was created.
 */
export const createdAtOf = (entity: { createdAt?: Date }): Date => entity.createdAt ?? new Date();
