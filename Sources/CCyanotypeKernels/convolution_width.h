// One output run of the separable convolution (convolution.c) at one vector width: included
// once with CYAN_BITS 256 (AVX2) and once with 512 (AVX-512); see vector_paths.h.

// CYAN_W / 4 pixels (one vector): the tail below the four-vector steps.
CYAN_TARGET static inline void CYAN_WIDTH_NAME(cyan_conv_vector)(float *d, const float *c, ptrdiff_t step, const float *w, int r) {
    CYAN_V a = CYAN_MM(mul_ps)(CYAN_MM(loadu_ps)(c), CYAN_MM(set1_ps)(w[0]));
    for (int k = 1; k <= r; k++) {
        CYAN_V p = CYAN_MM(add_ps)(CYAN_MM(loadu_ps)(c - k * step), CYAN_MM(loadu_ps)(c + k * step));
        a = CYAN_MM(add_ps)(a, CYAN_MM(mul_ps)(p, CYAN_MM(set1_ps)(w[k])));
    }
    CYAN_MM(storeu_ps)(d, a);
}

// `n` pixels of one output run, `step` floats between taps (4: along a row; a row stride:
// down a column), CYAN_W pixels per step in four accumulators, then the tail: one vector at
// a time, then what is left at the narrower width (AVX2 pixel pairs, and the last pixel).
CYAN_TARGET static void CYAN_WIDTH_NAME(cyan_conv_run)(float *d, const float *c, size_t n, ptrdiff_t step, const float *w, int r) {
    size_t x = 0;
    for (; x + CYAN_W <= n; x += CYAN_W) {
        const float *q = c + 4 * x;
        const CYAN_V w0 = CYAN_MM(set1_ps)(w[0]);
        CYAN_V a0 = CYAN_MM(mul_ps)(CYAN_MM(loadu_ps)(q), w0), a1 = CYAN_MM(mul_ps)(CYAN_MM(loadu_ps)(q + CYAN_W), w0);
        CYAN_V a2 = CYAN_MM(mul_ps)(CYAN_MM(loadu_ps)(q + 2 * CYAN_W), w0), a3 = CYAN_MM(mul_ps)(CYAN_MM(loadu_ps)(q + 3 * CYAN_W), w0);
        for (int k = 1; k <= r; k++) {
            const CYAN_V wk = CYAN_MM(set1_ps)(w[k]);
            const float *lo = q - k * step, *hi = q + k * step;
            a0 = CYAN_MM(add_ps)(a0, CYAN_MM(mul_ps)(CYAN_MM(add_ps)(CYAN_MM(loadu_ps)(lo), CYAN_MM(loadu_ps)(hi)), wk));
            a1 = CYAN_MM(add_ps)(a1, CYAN_MM(mul_ps)(CYAN_MM(add_ps)(CYAN_MM(loadu_ps)(lo + CYAN_W), CYAN_MM(loadu_ps)(hi + CYAN_W)), wk));
            a2 = CYAN_MM(add_ps)(a2, CYAN_MM(mul_ps)(CYAN_MM(add_ps)(CYAN_MM(loadu_ps)(lo + 2 * CYAN_W), CYAN_MM(loadu_ps)(hi + 2 * CYAN_W)), wk));
            a3 = CYAN_MM(add_ps)(a3, CYAN_MM(mul_ps)(CYAN_MM(add_ps)(CYAN_MM(loadu_ps)(lo + 3 * CYAN_W), CYAN_MM(loadu_ps)(hi + 3 * CYAN_W)), wk));
        }
        float *o = d + 4 * x;
        CYAN_MM(storeu_ps)(o, a0); CYAN_MM(storeu_ps)(o + CYAN_W, a1);
        CYAN_MM(storeu_ps)(o + 2 * CYAN_W, a2); CYAN_MM(storeu_ps)(o + 3 * CYAN_W, a3);
    }
    for (; x + CYAN_W / 4 <= n; x += CYAN_W / 4) CYAN_WIDTH_NAME(cyan_conv_vector)(d + 4 * x, c + 4 * x, step, w, r);
#if CYAN_BITS == 512
    cyan_conv_run_256(d + 4 * x, c + 4 * x, n - x, step, w, r);
#else
    if (x < n) cyan_conv1(d + 4 * x, c + 4 * x, step, w, r);
#endif
}
