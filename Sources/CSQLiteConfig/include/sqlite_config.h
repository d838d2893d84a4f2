#ifndef TREES_SQLITE_CONFIG_H
#define TREES_SQLITE_CONFIG_H
/*
 * Connection settings of SQLite that only sqlite3_db_config() changes, a variadic function Swift
 * cannot call. The connection is passed untyped so that this header need not include sqlite3.h,
 * which GRDB's module already brings to Swift.
 */

/* Turns the firing of triggers of the main schema on or off for statements prepared from now on
 * (SQLITE_DBCONFIG_ENABLE_TRIGGER; SQLite makes every prepared statement prepare itself again).
 * Returns the setting then in force: 1 on, 0 off, -1 when SQLite refused. */
int trees_sqlite_enable_triggers(void *connection, int on);

/* Settings of the SQLite library itself, made before it starts (sqlite3_config): it keeps no
 * statistics of its memory, which it otherwise counts under one lock for every allocation of every
 * connection. Returns 0 when they are in force, -1 when SQLite had already started. */
int trees_sqlite_configure(void);

#endif
