// What the kernel files' vector paths share (private to this target): the x86-64 intrinsics
// and the function attributes that compile a path for its instruction set. A path marked
// CYAN_AVX2 or CYAN_AVX512 runs only after `cyan_vector_bits()` said the CPU has it.
#ifndef CYAN_VECTOR_PATHS_H
#define CYAN_VECTOR_PATHS_H

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define CYAN_AVX2 __attribute__((target("avx2,fma")))
#define CYAN_AVX512 __attribute__((target("avx512f,avx2,fma")))

// A path written once for both widths lives in a `*_width.h` file that its kernel file includes
// twice, with CYAN_BITS defined as 256 and then 512; in it, CYAN_V is the vector type (`__m256`,
// `__m512`), CYAN_VI the integer one, CYAN_W the floats a vector holds, CYAN_MM(add_ps) the
// intrinsic of that width (`_mm256_add_ps`), CYAN_SI(and) an integer one (`_mm256_and_si256`),
// CYAN_TARGET the attribute, and CYAN_WIDTH_NAME(f) the function's name (`f_256`). Each width
// keeps its own intrinsics, so both compile to what two hand-written copies did.
#define CYAN_CAT3_(a, b, c) a##b##c
#define CYAN_CAT3(a, b, c) CYAN_CAT3_(a, b, c)
#define CYAN_TARGET_256 CYAN_AVX2
#define CYAN_TARGET_512 CYAN_AVX512
#define CYAN_TARGET CYAN_CAT3(CYAN_TARGET_, CYAN_BITS, )
#define CYAN_V CYAN_CAT3(__m, CYAN_BITS, )
#define CYAN_VI CYAN_CAT3(__m, CYAN_BITS, i)
#define CYAN_W (CYAN_BITS / 32)
#define CYAN_MM(op) CYAN_CAT3(_mm, CYAN_BITS, _##op)
#define CYAN_SI(op) CYAN_CAT3(CYAN_MM(op), _si, CYAN_BITS)
#define CYAN_WIDTH_NAME(name) CYAN_CAT3(name, _, CYAN_BITS)
#endif

#endif
