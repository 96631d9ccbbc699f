// The planar run (planar.c) at one vector width: included once with CYAN_BITS 256 (AVX2, eight
// lanes) and once with 512 (AVX-512, sixteen); see vector_paths.h. Both widths do the same
// operations lane by lane (the stage description says which width to take, so both give the
// same bits).

#define CYAN_CASTSI_PS(x) CYAN_CAT3(CYAN_MM(castsi), CYAN_BITS, _ps)(x)

// The colour matrix on opaque pixels: r' = ((c0.r r + bias.r) + c1.r g + c2.r b) + c3.r a as
// cyan_matrix_avx2's chain of fused multiply-adds; with a = 1 the last one is an addition
// (c3.r * 1 is exact, so fma(c3.r, 1, x) and c3.r + x round alike).
CYAN_TARGET static int CYAN_WIDTH_NAME(cyan_planar_matrix_run)(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    const float *m = s->values;
    const CYAN_V c00 = CYAN_MM(set1_ps)(m[0]), c01 = CYAN_MM(set1_ps)(m[1]), c02 = CYAN_MM(set1_ps)(m[2]);
    const CYAN_V c10 = CYAN_MM(set1_ps)(m[4]), c11 = CYAN_MM(set1_ps)(m[5]), c12 = CYAN_MM(set1_ps)(m[6]);
    const CYAN_V c20 = CYAN_MM(set1_ps)(m[8]), c21 = CYAN_MM(set1_ps)(m[9]), c22 = CYAN_MM(set1_ps)(m[10]);
    const CYAN_V c30 = CYAN_MM(set1_ps)(m[12]), c31 = CYAN_MM(set1_ps)(m[13]), c32 = CYAN_MM(set1_ps)(m[14]);
    const CYAN_V b0 = CYAN_MM(set1_ps)(m[16]), b1 = CYAN_MM(set1_ps)(m[17]), b2 = CYAN_MM(set1_ps)(m[18]);
    for (size_t i = 0; i < n; i += CYAN_W) {
        CYAN_V r = CYAN_MM(load_ps)(R + i), g = CYAN_MM(load_ps)(G + i), b = CYAN_MM(load_ps)(B + i);
        CYAN_V o0 = CYAN_MM(fmadd_ps)(c00, r, b0), o1 = CYAN_MM(fmadd_ps)(c01, r, b1), o2 = CYAN_MM(fmadd_ps)(c02, r, b2);
        o0 = CYAN_MM(fmadd_ps)(c10, g, o0); o1 = CYAN_MM(fmadd_ps)(c11, g, o1); o2 = CYAN_MM(fmadd_ps)(c12, g, o2);
        o0 = CYAN_MM(fmadd_ps)(c20, b, o0); o1 = CYAN_MM(fmadd_ps)(c21, b, o1); o2 = CYAN_MM(fmadd_ps)(c22, b, o2);
        CYAN_MM(store_ps)(R + i, CYAN_MM(add_ps)(c30, o0));
        CYAN_MM(store_ps)(G + i, CYAN_MM(add_ps)(c31, o1));
        CYAN_MM(store_ps)(B + i, CYAN_MM(add_ps)(c32, o2));
    }
    return 0;
}

// Vibrance as cyan_vibrance_avx2: mx = max(b, max(g, r)) (maxps, NaN as there), mean =
// ((r + g) + b) / 3 (times the float nearest 1/3), t = (mx - mean) k, c - (c - mx) t.
CYAN_TARGET static int CYAN_WIDTH_NAME(cyan_planar_vibrance_run)(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    const CYAN_V kv = CYAN_MM(set1_ps)(s->values[0]), third = CYAN_MM(set1_ps)(1.0f / 3.0f);
    for (size_t i = 0; i < n; i += CYAN_W) {
        CYAN_V r = CYAN_MM(load_ps)(R + i), g = CYAN_MM(load_ps)(G + i), b = CYAN_MM(load_ps)(B + i);
        CYAN_V mx = CYAN_MM(max_ps)(b, CYAN_MM(max_ps)(g, r));
        CYAN_V mean = CYAN_MM(mul_ps)(CYAN_MM(add_ps)(CYAN_MM(add_ps)(r, g), b), third);
        CYAN_V t = CYAN_MM(mul_ps)(CYAN_MM(sub_ps)(mx, mean), kv);
        CYAN_MM(store_ps)(R + i, CYAN_MM(sub_ps)(r, CYAN_MM(mul_ps)(CYAN_MM(sub_ps)(r, mx), t)));
        CYAN_MM(store_ps)(G + i, CYAN_MM(sub_ps)(g, CYAN_MM(mul_ps)(CYAN_MM(sub_ps)(g, mx), t)));
        CYAN_MM(store_ps)(B + i, CYAN_MM(sub_ps)(b, CYAN_MM(mul_ps)(CYAN_MM(sub_ps)(b, mx), t)));
    }
    return 0;
}

// sign(x) |x|^p through a PowerTable as cyan_power_table_avx2: cell index from the float's
// bits, u from its remaining mantissa bits, a + u (b + u c) by two fused multiply-adds, the
// sign ORed back. CYAN_W values of one channel per step; their cells (a, b, c, 0) are loaded
// four at a time (cyan_planar_cells_256/512: lanes j, j + 4, ...) and transposed to an a, a b
// and a c vector.
CYAN_TARGET static inline CYAN_VI CYAN_WIDTH_NAME(cyan_planar_cell)(CYAN_V p, __m128i shift) {
    return CYAN_MM(srl_epi32)(CYAN_SI(and)(CYAN_SI(castps)(p), CYAN_MM(set1_epi32)(0x7FFFFFFF)), shift);
}

CYAN_TARGET static inline CYAN_V CYAN_WIDTH_NAME(cyan_planar_power)(CYAN_V p, const float *cells, __m128i shift, CYAN_VI low, CYAN_V cellScale) {
    CYAN_VI bits = CYAN_SI(castps)(p);
    CYAN_VI j = CYAN_MM(slli_epi32)(CYAN_WIDTH_NAME(cyan_planar_cell)(p, shift), 2);
    CYAN_V u = CYAN_MM(mul_ps)(CYAN_MM(sub_ps)(CYAN_CASTSI_PS(CYAN_SI(or)(CYAN_SI(and)(bits, low), CYAN_MM(set1_epi32)(0x3F800000))),
                                               CYAN_MM(set1_ps)(1.0f)), cellScale);
    int32_t jj[CYAN_W];
    CYAN_SI(storeu)((void *)jj, j);
    CYAN_V q0 = CYAN_WIDTH_NAME(cyan_planar_cells)(cells, jj), q1 = CYAN_WIDTH_NAME(cyan_planar_cells)(cells, jj + 1);
    CYAN_V q2 = CYAN_WIDTH_NAME(cyan_planar_cells)(cells, jj + 2), q3 = CYAN_WIDTH_NAME(cyan_planar_cells)(cells, jj + 3);
    CYAN_V t0 = CYAN_MM(unpacklo_ps)(q0, q1), t1 = CYAN_MM(unpackhi_ps)(q0, q1);
    CYAN_V t2 = CYAN_MM(unpacklo_ps)(q2, q3), t3 = CYAN_MM(unpackhi_ps)(q2, q3);
    CYAN_V a = CYAN_MM(shuffle_ps)(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), b = CYAN_MM(shuffle_ps)(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    CYAN_V c = CYAN_MM(shuffle_ps)(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    CYAN_V r = CYAN_MM(fmadd_ps)(u, CYAN_MM(fmadd_ps)(u, c, b), a);
    return CYAN_CASTSI_PS(CYAN_SI(or)(CYAN_SI(castps)(r), CYAN_SI(and)(bits, CYAN_MM(set1_epi32)((int)0x80000000))));
}

// Declines the block (returns 1, touching nothing) when a value is outside the table
// (|x| >= 256, infinity, NaN): the caller then runs the stage's row loop, which sends those
// to the exact vector pow.
CYAN_TARGET static int CYAN_WIDTH_NAME(cyan_planar_power_run)(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    const int k = s->k;
    const float *cells = s->table;
    const __m128i shift = _mm_cvtsi32_si128(23 - k);
    const CYAN_VI countv = CYAN_MM(set1_epi32)(s->count), low = CYAN_MM(set1_epi32)((1 << (23 - k)) - 1);
    const CYAN_V cellScale = CYAN_MM(set1_ps)((float)(1 << k));
    CYAN_WIDTH_NAME(cyan_planar_lanes) inside = CYAN_WIDTH_NAME(cyan_planar_all_lanes)();
    for (size_t i = 0; i < n; i += CYAN_W) {
        inside = CYAN_WIDTH_NAME(cyan_planar_below)(inside, countv, CYAN_WIDTH_NAME(cyan_planar_cell)(CYAN_MM(load_ps)(R + i), shift));
        inside = CYAN_WIDTH_NAME(cyan_planar_below)(inside, countv, CYAN_WIDTH_NAME(cyan_planar_cell)(CYAN_MM(load_ps)(G + i), shift));
        inside = CYAN_WIDTH_NAME(cyan_planar_below)(inside, countv, CYAN_WIDTH_NAME(cyan_planar_cell)(CYAN_MM(load_ps)(B + i), shift));
    }
    if (!CYAN_WIDTH_NAME(cyan_planar_everywhere)(inside)) return 1;
    for (size_t i = 0; i < n; i += CYAN_W) {
        CYAN_MM(store_ps)(R + i, CYAN_WIDTH_NAME(cyan_planar_power)(CYAN_MM(load_ps)(R + i), cells, shift, low, cellScale));
        CYAN_MM(store_ps)(G + i, CYAN_WIDTH_NAME(cyan_planar_power)(CYAN_MM(load_ps)(G + i), cells, shift, low, cellScale));
        CYAN_MM(store_ps)(B + i, CYAN_WIDTH_NAME(cyan_planar_power)(CYAN_MM(load_ps)(B + i), cells, shift, low, cellScale));
    }
    return 0;
}

// CYAN_W pixels to planes; the lanes come out in the order 0 2 4 6 1 3 5 7 (within each
// 256-bit half), which the way back undoes (stages never look across lanes).
CYAN_TARGET static inline void CYAN_WIDTH_NAME(cyan_planar_split)(const float *p, float *R, float *G, float *B) {
    CYAN_V v0 = CYAN_MM(loadu_ps)(p), v1 = CYAN_MM(loadu_ps)(p + CYAN_W);
    CYAN_V v2 = CYAN_MM(loadu_ps)(p + 2 * CYAN_W), v3 = CYAN_MM(loadu_ps)(p + 3 * CYAN_W);
    CYAN_V t0 = CYAN_MM(unpacklo_ps)(v0, v1), t1 = CYAN_MM(unpackhi_ps)(v0, v1);
    CYAN_V t2 = CYAN_MM(unpacklo_ps)(v2, v3), t3 = CYAN_MM(unpackhi_ps)(v2, v3);
    CYAN_MM(store_ps)(R, CYAN_MM(shuffle_ps)(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)));
    CYAN_MM(store_ps)(G, CYAN_MM(shuffle_ps)(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)));
    CYAN_MM(store_ps)(B, CYAN_MM(shuffle_ps)(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
}

CYAN_TARGET static inline void CYAN_WIDTH_NAME(cyan_planar_join)(float *p, const float *R, const float *G, const float *B) {
    const CYAN_V one = CYAN_MM(set1_ps)(1.0f);
    CYAN_V r = CYAN_MM(load_ps)(R), g = CYAN_MM(load_ps)(G), b = CYAN_MM(load_ps)(B);
    CYAN_V rg0 = CYAN_MM(unpacklo_ps)(r, g), rg1 = CYAN_MM(unpackhi_ps)(r, g);
    CYAN_V ba0 = CYAN_MM(unpacklo_ps)(b, one), ba1 = CYAN_MM(unpackhi_ps)(b, one);
    CYAN_MM(storeu_ps)(p, CYAN_MM(shuffle_ps)(rg0, ba0, _MM_SHUFFLE(1, 0, 1, 0)));
    CYAN_MM(storeu_ps)(p + CYAN_W, CYAN_MM(shuffle_ps)(rg0, ba0, _MM_SHUFFLE(3, 2, 3, 2)));
    CYAN_MM(storeu_ps)(p + 2 * CYAN_W, CYAN_MM(shuffle_ps)(rg1, ba1, _MM_SHUFFLE(1, 0, 1, 0)));
    CYAN_MM(storeu_ps)(p + 3 * CYAN_W, CYAN_MM(shuffle_ps)(rg1, ba1, _MM_SHUFFLE(3, 2, 3, 2)));
}

// One block of `len` pixels (1...CYAN_PLANAR_BLOCK) through the stages; a short block is
// padded with copies of its last pixel (real values, so no stage declines because of the
// padding), and only its own pixels are written back. Returns the index of the stage that
// declined, or `count` when all ran; the block is written back either way.
CYAN_TARGET static int CYAN_WIDTH_NAME(cyan_planar_block)(float *p, size_t len, const cyan_planar_stage *stages, int count) {
    _Alignas(CYAN_BITS / 8) float R[CYAN_PLANAR_BLOCK], G[CYAN_PLANAR_BLOCK], B[CYAN_PLANAR_BLOCK];
    const size_t whole = len & ~(size_t)(CYAN_W - 1), padded = (len + CYAN_W - 1) & ~(size_t)(CYAN_W - 1);
    for (size_t i = 0; i < whole; i += CYAN_W) CYAN_WIDTH_NAME(cyan_planar_split)(p + 4 * i, R + i, G + i, B + i);
    // Plain order for the last partial group: lanes never mix, so any order is the same.
    for (size_t i = whole; i < padded; i++) {
        const float *q = p + 4 * (i < len ? i : len - 1);
        R[i] = q[0]; G[i] = q[1]; B[i] = q[2];
    }
    int s = 0;
    for (; s < count; s++)
        if (stages[s].CYAN_WIDTH_NAME(run)(R, G, B, padded, &stages[s]) != 0) break;
    for (size_t i = 0; i < whole; i += CYAN_W) CYAN_WIDTH_NAME(cyan_planar_join)(p + 4 * i, R + i, G + i, B + i);
    for (size_t i = whole; i < len; i++) { float *q = p + 4 * i; q[0] = R[i]; q[1] = G[i]; q[2] = B[i]; }
    return s;
}

CYAN_TARGET static size_t CYAN_WIDTH_NAME(cyan_planar_run)(float *row, size_t n, const cyan_planar_stage *stages, int count, int *declined) {
    for (size_t done = 0; done < n; done += CYAN_PLANAR_BLOCK) {
        size_t len = n - done < CYAN_PLANAR_BLOCK ? n - done : CYAN_PLANAR_BLOCK;
        int s = CYAN_WIDTH_NAME(cyan_planar_block)(row + 4 * done, len, stages, count);
        if (s < count) { *declined = s; return done; }
    }
    return n;
}

#undef CYAN_CASTSI_PS
