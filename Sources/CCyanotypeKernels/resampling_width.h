// The vertical pass of a resampling (resampling.c) at one vector width: included once with
// CYAN_BITS 256 (AVX2) and once with 512 (AVX-512); see vector_paths.h.

// Outputs `x` up to `n` of one row: CYAN_W pixels per step in four accumulators, each the sum
// of the `taps` rows times their weights; what is left goes to the narrower width (AVX2), and
// below that one pixel at a time (SSE lanes), which give the same bits.
CYAN_TARGET static void CYAN_WIDTH_NAME(cyan_resample_column)(float *dst, const float *const *rows, const float *w, size_t taps, size_t x, size_t n) {
    for (; x + CYAN_W <= n; x += CYAN_W) {
        CYAN_V a0 = CYAN_MM(setzero_ps)(), a1 = a0, a2 = a0, a3 = a0;
        for (size_t k = 0; k < taps; k++) {
            const float *s = rows[k] + 4 * x;
            const CYAN_V wk = CYAN_MM(set1_ps)(w[k]);
            a0 = CYAN_MM(add_ps)(a0, CYAN_MM(mul_ps)(CYAN_MM(loadu_ps)(s), wk));
            a1 = CYAN_MM(add_ps)(a1, CYAN_MM(mul_ps)(CYAN_MM(loadu_ps)(s + CYAN_W), wk));
            a2 = CYAN_MM(add_ps)(a2, CYAN_MM(mul_ps)(CYAN_MM(loadu_ps)(s + 2 * CYAN_W), wk));
            a3 = CYAN_MM(add_ps)(a3, CYAN_MM(mul_ps)(CYAN_MM(loadu_ps)(s + 3 * CYAN_W), wk));
        }
        float *o = dst + 4 * x;
        CYAN_MM(storeu_ps)(o, a0); CYAN_MM(storeu_ps)(o + CYAN_W, a1);
        CYAN_MM(storeu_ps)(o + 2 * CYAN_W, a2); CYAN_MM(storeu_ps)(o + 3 * CYAN_W, a3);
    }
#if CYAN_BITS == 512
    if (x < n) cyan_resample_column_256(dst, rows, w, taps, x, n);
#else
    for (; x < n; x++) {
        __m128 a = _mm_setzero_ps();
        for (size_t k = 0; k < taps; k++) a = _mm_add_ps(a, _mm_mul_ps(_mm_loadu_ps(rows[k] + 4 * x), _mm_broadcast_ss(w + k)));
        _mm_storeu_ps(dst + 4 * x, a);
    }
#endif
}
