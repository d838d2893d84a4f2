#ifndef TREES_CPROJ_SHIM_H
#define TREES_CPROJ_SHIM_H
/*
 * PROJ, the coordinate transformation library, as the GIS module uses it.
 *
 * Written against PROJ 9.1 (Debian 12, libproj-dev). The helpers below keep Swift away from
 * PJ_COORD, a C union, and from the out-parameters of the area-of-use query.
 */
#include <math.h>
#include <stdbool.h>
#include <proj.h>

#if PROJ_VERSION_MAJOR < 8
#error "trees needs PROJ 8 or later: it reads error texts with proj_context_errno_string"
#endif

/* Transforms one position in place (x, y as the operation expects them), forward or back; false
 * when PROJ cannot (the position is outside what the operation covers). */
static inline bool trees_proj_transform(PJ *operation, PJ_DIRECTION direction, double *x, double *y) {
    PJ_COORD c = proj_coord(*x, *y, 0, 0);
    PJ_COORD r = proj_trans(operation, direction, c);
    *x = r.xy.x;
    *y = r.xy.y;
    return isfinite(r.xy.x) && isfinite(r.xy.y) && r.xy.x != HUGE_VAL && r.xy.y != HUGE_VAL;
}

/* The area a CRS is meant for, in degrees of longitude and latitude; false when PROJ knows none. */
static inline bool trees_proj_area(PJ_CONTEXT *ctx, const PJ *crs, double *west, double *south, double *east, double *north) {
    const char *name = NULL;
    return proj_get_area_of_use(ctx, crs, west, south, east, north, &name) != 0 && *west > -1000;
}

/* True for a geographic CRS (degrees), false for a projected one (metres or feet). */
static inline bool trees_proj_is_geographic(const PJ *crs) {
    PJ_TYPE t = proj_get_type(crs);
    return t == PJ_TYPE_GEOGRAPHIC_2D_CRS || t == PJ_TYPE_GEOGRAPHIC_3D_CRS || t == PJ_TYPE_GEOGRAPHIC_CRS;
}
#endif
