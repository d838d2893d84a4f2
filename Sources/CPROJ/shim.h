#ifndef TREES_CPROJ_SHIM_H
#define TREES_CPROJ_SHIM_H
/*
 * PROJ, the coordinate transformation library, as the GIS module uses it.
 *
 * Written against PROJ 9.1 (Debian 12, libproj-dev). The helpers below keep Swift away from
 * PJ_COORD, a C union, and from the out-parameters of the area-of-use query.
 *
 * PROJ is opened when a coordinate reference system is first needed, not when trees starts: with
 * libcurl, libtiff and TLS behind it, linking it would load some thirty libraries into every
 * command. The header gives the functions' types; trees_proj_load finds them in the library.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <proj.h>

#if PROJ_VERSION_MAJOR < 8
#error "trees needs PROJ 8 or later: it reads error texts with proj_context_errno_string"
#endif

#define TREES_PROJ_FUNCTIONS(X) \
    X(proj_context_create) X(proj_context_destroy) X(proj_log_level) X(proj_create) X(proj_destroy) \
    X(proj_is_crs) X(proj_create_crs_to_crs) X(proj_normalize_for_visualization) X(proj_trans) \
    X(proj_context_errno) X(proj_context_errno_string) X(proj_get_id_auth_name) X(proj_get_id_code) \
    X(proj_get_name) X(proj_as_wkt) X(proj_get_area_of_use) X(proj_get_type)

/* The functions trees calls, each with its own name and type. */
typedef struct trees_proj {
#define TREES_PROJ_FIELD(name) __typeof__(name) *_Nonnull name;
    TREES_PROJ_FUNCTIONS(TREES_PROJ_FIELD)
#undef TREES_PROJ_FIELD
} trees_proj;

/* Opens PROJ (the development link, which names the library the header came with, or the
 * sonames of PROJ 9 and 8) and finds every function; NULL with *why set (dlerror's text, or the
 * function missing) when it cannot. Call it once: the caller keeps the answer. */
static inline const trees_proj *_Nullable trees_proj_load(const char *_Nullable *_Nonnull why) {
    static trees_proj functions;
    const char *names[] = { "libproj.so", "libproj.so.25", "libproj.so.22", "libproj.so.19" };
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { *why = "none of libproj.so, libproj.so.25, .22 or .19 can be opened (is libproj25 installed?)"; return NULL; }
#define TREES_PROJ_FIND(name) \
    if ((functions.name = (__typeof__(name) *)dlsym(library, #name)) == NULL) { *why = "PROJ has no " #name; return NULL; }
    TREES_PROJ_FUNCTIONS(TREES_PROJ_FIND)
#undef TREES_PROJ_FIND
    return &functions;
}

/* Transforms one position in place (x, y as the operation expects them), forward or back; false
 * when PROJ cannot (the position is outside what the operation covers). */
static inline bool trees_proj_transform(const trees_proj *_Nonnull proj, PJ *operation, PJ_DIRECTION direction,
                                        double *x, double *y) {
    PJ_COORD c = { .xyzt = { .x = *x, .y = *y, .z = 0, .t = 0 } };
    PJ_COORD r = proj->proj_trans(operation, direction, c);
    *x = r.xy.x;
    *y = r.xy.y;
    return isfinite(r.xy.x) && isfinite(r.xy.y) && r.xy.x != HUGE_VAL && r.xy.y != HUGE_VAL;
}

/* The area a CRS is meant for, in degrees of longitude and latitude; false when PROJ knows none. */
static inline bool trees_proj_area(const trees_proj *_Nonnull proj, PJ_CONTEXT *ctx, const PJ *crs, double *west, double *south,
                                   double *east, double *north) {
    const char *name = NULL;
    return proj->proj_get_area_of_use(ctx, crs, west, south, east, north, &name) != 0 && *west > -1000;
}

/* True for a geographic CRS (degrees), false for a projected one (metres or feet). */
static inline bool trees_proj_is_geographic(const trees_proj *_Nonnull proj, const PJ *crs) {
    PJ_TYPE t = proj->proj_get_type(crs);
    return t == PJ_TYPE_GEOGRAPHIC_2D_CRS || t == PJ_TYPE_GEOGRAPHIC_3D_CRS || t == PJ_TYPE_GEOGRAPHIC_CRS;
}
#endif
