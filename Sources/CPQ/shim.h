#ifndef TREES_CPQ_SHIM_H
#define TREES_CPQ_SHIM_H
/*
 * PostgreSQL's client library, libpq, as TreesSync uses it (Debian 12: libpq-dev 15).
 * libpq reads the same settings psql does: PGHOST, PGPASSWORD, ~/.pgpass, PGSERVICE and
 * pg_service.conf, sslmode. Nothing here needs a helper yet; the header is included as is.
 */
#include <libpq-fe.h>
#endif
