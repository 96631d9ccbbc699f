#ifndef CY_CAPPED_ALLOC_H
#define CY_CAPPED_ALLOC_H
// A malloc/free pair that refuses to hold more than a set number of bytes at once, for C
// libraries that take an allocator (libjxl's JxlMemoryManager): a hostile file then fails
// with an allocation error inside the library instead of exhausting memory. Thread-safe.
#include <stddef.h>
#include <stdint.h>

typedef struct cy_alloc_budget cy_alloc_budget;

/// A budget of `limit` bytes; NULL when out of memory. Free it with cy_alloc_budget_free once
/// everything allocated from it has been freed.
cy_alloc_budget *cy_alloc_budget_new(uint64_t limit);
void cy_alloc_budget_free(cy_alloc_budget *b);
/// Whether an allocation was refused for lack of budget (sticky), and the peak held.
int cy_alloc_budget_exceeded(const cy_alloc_budget *b);
uint64_t cy_alloc_budget_peak(const cy_alloc_budget *b);
/// The allocator pair, `opaque` being the budget (the shape of jpegxl_alloc_func/free_func).
void *cy_budget_alloc(void *opaque, size_t size);
void cy_budget_free(void *opaque, void *address);

#endif
