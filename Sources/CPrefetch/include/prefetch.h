#ifndef TREES_PREFETCH_H
#define TREES_PREFETCH_H
/*
 * Asks the processor to bring the cache line at `address` into its caches, without waiting for it:
 * a run of these lets the reads of a batch of lookups in a large table overlap. A hint only; it
 * never faults, whatever the address.
 */
static inline void trees_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}
#endif
