// The SQLite store.
