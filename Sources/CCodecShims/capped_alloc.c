#include "capped_alloc.h"
#include <stdatomic.h>
#include <stdlib.h>

struct cy_alloc_budget {
    uint64_t limit;
    _Atomic uint64_t held;
    _Atomic uint64_t peak;
    _Atomic int exceeded;
};

// Each block carries its size in a 16-byte header (keeps 16-byte alignment).
enum { HEADER = 16 };

cy_alloc_budget *cy_alloc_budget_new(uint64_t limit) {
    cy_alloc_budget *b = calloc(1, sizeof *b);
    if (b) b->limit = limit;
    return b;
}

void cy_alloc_budget_free(cy_alloc_budget *b) { free(b); }
int cy_alloc_budget_exceeded(const cy_alloc_budget *b) { return atomic_load(&b->exceeded); }
uint64_t cy_alloc_budget_peak(const cy_alloc_budget *b) { return atomic_load(&b->peak); }

void *cy_budget_alloc(void *opaque, size_t size) {
    cy_alloc_budget *b = opaque;
    if (!b || size > SIZE_MAX - HEADER) return NULL;
    uint64_t now = atomic_fetch_add(&b->held, (uint64_t)size) + size;
    if (now > b->limit) {
        atomic_fetch_sub(&b->held, (uint64_t)size);
        atomic_store(&b->exceeded, 1);
        return NULL;
    }
    uint64_t peak = atomic_load(&b->peak);
    while (now > peak && !atomic_compare_exchange_weak(&b->peak, &peak, now)) {}
    unsigned char *p = malloc(size + HEADER);
    if (!p) {
        atomic_fetch_sub(&b->held, (uint64_t)size);
        return NULL;
    }
    *(size_t *)p = size;
    return p + HEADER;
}

void cy_budget_free(void *opaque, void *address) {
    cy_alloc_budget *b = opaque;
    if (!address) return;
    unsigned char *p = (unsigned char *)address - HEADER;
    if (b) atomic_fetch_sub(&b->held, (uint64_t)*(size_t *)p);
    free(p);
}
