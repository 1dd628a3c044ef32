import { openEntry, openRemovedEntry, sealForward } from "./sealed-forwards.js";
import type { SecretsKeyring } from "./secrets-keyring.js";
import type { Store, StoredEntry } from "./store.js";

/**
 * The store with forwards' upstreams sealed on their way in and opened on their way out: every forward the
 * catalog writes is stored encrypted (see `sealForward`), and every one it reads (a snapshot, the change feed's
 * fetches, what a delete returns) comes back in clear, so nothing above the store changes. A forward that cannot
 * be decrypted fails every read but its removal. Other entries pass as they are.
 */
export function withSealedForwards(store: Store, keyring: SecretsKeyring | undefined): Store {
  const open = (entry: StoredEntry) => openEntry(entry, keyring);
  const openRemoved = (entry: StoredEntry) => openRemovedEntry(entry, keyring);
  return {
    ...store,
    async loadSnapshot() {
      const snapshot = await store.loadSnapshot();
      return { ...snapshot, entries: snapshot.entries.map(open) };
    },
    async fetchEntries(kind, ids) {
      return (await store.fetchEntries(kind, ids)).map(open);
    },
    async deleteNamespace(name, cascade) {
      const deleted = await store.deleteNamespace(name, cascade);
      return { ...deleted, entries: deleted.entries.map(openRemoved) };
    },
    async insertEntry(entry, now) {
      const stored =
        entry.kind === "forward"
          ? await store.insertEntry({ ...entry, document: sealForward(entry, keyring) }, now)
          : await store.insertEntry(entry, now);
      return open(stored);
    },
    async updateEntry(kind, namespace, key, update, options) {
      const stored = await store.updateEntry(
        kind,
        namespace,
        key,
        kind === "forward"
          ? (current) => {
              const next = update(open(current));
              const row = { id: current.id, namespace, name: next.name, document: next.document };
              return { name: next.name, document: sealForward(row, keyring) };
            }
          : update,
        options,
      );
      return open(stored);
    },
    async deleteEntry(kind, namespace, key) {
      return openRemoved(await store.deleteEntry(kind, namespace, key));
    },
    async deleteEntries(kind, namespace, select) {
      const removed = await store.deleteEntries(kind, namespace, (entry) => select(openRemoved(entry)));
      return removed.map(openRemoved);
    },
  };
}
