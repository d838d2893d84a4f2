#ifndef TREES_CGPS_SHIM_H
#define TREES_CGPS_SHIM_H
#include <gps.h>
#endif
