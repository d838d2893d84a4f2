#ifndef TREES_CGPS_SHIM_H
#define TREES_CGPS_SHIM_H
/*
 * gpsd's client library, libgps, as the Location module uses it.
 *
 * Written against gpsd 3.22 (Debian 12, libgps-dev), GPSD_API_MAJOR_VERSION 11. The helpers
 * below reach what Swift cannot import cleanly: the anonymous union in struct gps_data_t,
 * 64-bit mask macros, errno, and a zeroed heap allocation for the large gps_data_t.
 *
 * libgps is opened when the first gpsd connection is made, not when trees starts: it brings
 * D-Bus, systemd, libgcrypt and three compressors along, eight libraries every other command
 * would load for nothing. The header gives the functions' types; trees_gps_load finds them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <gps.h>

#if GPSD_API_MAJOR_VERSION < 9
#error "trees needs libgps API 9 or later (gpsd 3.20+): it reads fix.altMSL, fix.altHAE and fix.geoid_sep"
#endif

#define TREES_GPS_FUNCTIONS(X) X(gps_open) X(gps_close) X(gps_stream) X(gps_waiting) X(gps_read) X(gps_errstr)

/* The libgps functions trees calls, each with its own name and type. */
typedef struct trees_gps {
#define TREES_GPS_FIELD(name) __typeof__(name) *_Nonnull name;
    TREES_GPS_FUNCTIONS(TREES_GPS_FIELD)
#undef TREES_GPS_FIELD
} trees_gps;

/* Opens libgps (the soname of the API compiled against, or the development link beside it) and
 * finds every function; NULL with *why set when it cannot. Call it once: the caller keeps the
 * answer. */
static inline const trees_gps *_Nullable trees_gps_load(const char *_Nullable *_Nonnull why) {
    static trees_gps functions;
    void *library = dlopen("libgps.so.28", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libgps.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { *why = "neither libgps.so.28 nor libgps.so can be opened (is libgps28 installed?)"; return NULL; }
#define TREES_GPS_FIND(name) \
    if ((functions.name = (__typeof__(name) *)dlsym(library, #name)) == NULL) { *why = "libgps has no " #name; return NULL; }
    TREES_GPS_FUNCTIONS(TREES_GPS_FIND)
#undef TREES_GPS_FIND
    return &functions;
}

/* The libgps API major version the package was compiled against. */
static inline int trees_gps_api_major(void) { return GPSD_API_MAJOR_VERSION; }
static inline int trees_gps_api_minor(void) { return GPSD_API_MINOR_VERSION; }

/* A zeroed gps_data_t on the heap (the struct is large); free with trees_gps_free. */
static inline struct gps_data_t *trees_gps_alloc(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}
static inline void trees_gps_free(struct gps_data_t *data) { free(data); }

/* Flags for gps_stream: watch in JSON, optionally one device only. */
static inline unsigned int trees_gps_watch_flags(bool oneDevice) {
    return WATCH_ENABLE | WATCH_JSON | (oneDevice ? WATCH_DEVICE : 0u);
}
static inline unsigned int trees_gps_unwatch_flags(void) { return WATCH_DISABLE; }

/* The errno left by the last failing libgps call, and its text (libgps' own codes included). */
static inline int trees_errno(void) { return errno; }
static inline void trees_clear_errno(void) { errno = 0; }

/* Members of the anonymous union in gps_data_t. */
static inline const struct gst_t *trees_gps_gst(const struct gps_data_t *data) { return &data->gst; }
static inline const struct version_t *trees_gps_version(const struct gps_data_t *data) { return &data->version; }
static inline const char *trees_gps_error(const struct gps_data_t *data) { return data->error; }

/* Bits of gps_data_t.set. */
static inline bool trees_gps_has(const struct gps_data_t *data, unsigned int bit) {
    return (data->set & (1llu << bit)) != 0;
}
static inline unsigned int trees_bit_gst(void) { return 27; }
static inline unsigned int trees_bit_version(void) { return 28; }
static inline unsigned int trees_bit_devicelist(void) { return 20; }
static inline unsigned int trees_bit_device(void) { return 19; }
static inline unsigned int trees_bit_satellite(void) { return 15; }
static inline unsigned int trees_bit_error(void) { return 31; }

/* A timespec as seconds since 1970 (NaN when zero: libgps' "not set"). */
static inline double trees_timespec_seconds(struct timespec t) {
    if (t.tv_sec == 0 && t.tv_nsec == 0) return __builtin_nan("");
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A device from the DEVICES list. */
static inline const struct devconfig_t *trees_gps_device_at(const struct gps_data_t *data, int index) {
    if (index < 0 || index >= data->devices.ndevices || index >= MAXUSERDEVS) return NULL;
    return &data->devices.list[index];
}
#endif
