#include <sqlite3.h>
#include "sqlite_config.h"

int trees_sqlite_enable_triggers(void *connection, int on) {
    int now = -1;
    if (sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_ENABLE_TRIGGER, on, &now) != SQLITE_OK) return -1;
    return now;
}

int trees_sqlite_configure(void) {
    if (sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK) return -1;
    return 0;
}
