/* The module is its header alone (`trees_prefetch` is inline); a C target needs a source file. */
#include "prefetch.h"
