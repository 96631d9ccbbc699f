// What the kernel files' vector paths share (private to this target): the x86-64 intrinsics
// and the function attributes that compile a path for its instruction set. A path marked
// CYAN_AVX2 or CYAN_AVX512 runs only after `cyan_vector_bits()` said the CPU has it.
#ifndef CYAN_VECTOR_PATHS_H
#define CYAN_VECTOR_PATHS_H

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define CYAN_AVX2 __attribute__((target("avx2,fma")))
#define CYAN_AVX512 __attribute__((target("avx512f,avx2,fma")))
#endif

#endif
