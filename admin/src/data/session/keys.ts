/** The signed-in account's own queries (outside any workspace or project). */
export const sessionKeys = {
  me: () => ['me'] as const,
};
