/**
 * Drops components nothing refers to (a shared header no operation uses, or the schemas of a
 * per-project document whose project has no tables yet), so that the documents stay lint-clean
 * whatever is mounted. Reachability from the paths: a component only unused ones refer to goes too.
 */
export function pruneUnusedComponents(doc: { components?: Record<string, unknown> }): void {
  const components = doc.components as Record<string, Record<string, unknown> | undefined> | undefined;
  if (!components) return;
  const refsIn = (value: unknown) => [...JSON.stringify(value).matchAll(/"#\/components\/([^/"]+)\/([^"]+)"/g)].map((m) => `${m[1]}/${m[2]}`);
  const { components: _components, ...rest } = doc;
  const reached = new Set<string>();
  const queue = refsIn(rest);
  while (queue.length > 0) {
    const ref = queue.pop()!;
    if (reached.has(ref)) continue;
    reached.add(ref);
    const [kind, name] = ref.split('/');
    queue.push(...refsIn(components[kind]?.[name] ?? null));
  }
  for (const [kind, entries] of Object.entries(components)) {
    // Security schemes are named by `security` requirements, never by $ref.
    if (kind === 'securitySchemes' || !entries) continue;
    for (const name of Object.keys(entries)) if (!reached.has(`${kind}/${name}`)) delete entries[name];
  }
}
