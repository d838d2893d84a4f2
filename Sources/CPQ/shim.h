#ifndef TREES_CPQ_SHIM_H
#define TREES_CPQ_SHIM_H
/*
 * PostgreSQL's client library, libpq, as TreesSync uses it (Debian 12: libpq-dev 15).
 * libpq reads the same settings psql does: PGHOST, PGPASSWORD, ~/.pgpass, PGSERVICE and
 * pg_service.conf, sslmode.
 *
 * libpq is opened when the first connection is made, not when trees starts: with Kerberos, LDAP
 * and TLS behind it, linking it would load some twenty libraries into every command. The header
 * gives the functions' types; trees_pq_load finds them in the library.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <postgresql/libpq-fe.h>

#define TREES_PQ_FUNCTIONS(X) \
    X(PQconnectdbParams) X(PQstatus) X(PQerrorMessage) X(PQfinish) X(PQsetNoticeProcessor) \
    X(PQexec) X(PQexecParams) X(PQresultStatus) X(PQresultErrorField) X(PQresultErrorMessage) \
    X(PQntuples) X(PQnfields) X(PQgetisnull) X(PQgetvalue) X(PQcmdTuples) X(PQclear) \
    X(PQgetResult) X(PQputCopyData) X(PQputCopyEnd)

/* The functions trees calls, each with its own name and type. */
typedef struct trees_pq {
#define TREES_PQ_FIELD(name) __typeof__(name) *_Nonnull name;
    TREES_PQ_FUNCTIONS(TREES_PQ_FIELD)
#undef TREES_PQ_FIELD
} trees_pq;

/* Opens libpq (its soname, or the development link beside it) and finds every function; NULL
 * with *why set (dlerror's text, or the function missing) when it cannot. Call it once: the
 * caller keeps the answer. */
static inline const trees_pq *_Nullable trees_pq_load(const char *_Nullable *_Nonnull why) {
    static trees_pq functions;
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libpq.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { *why = "neither libpq.so.5 nor libpq.so can be opened (is libpq5 installed?)"; return NULL; }
#define TREES_PQ_FIND(name) \
    if ((functions.name = (__typeof__(name) *)dlsym(library, #name)) == NULL) { *why = "libpq has no " #name; return NULL; }
    TREES_PQ_FUNCTIONS(TREES_PQ_FIND)
#undef TREES_PQ_FIND
    return &functions;
}
#endif
