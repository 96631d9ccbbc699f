#include "CCyanotypeKernels.h"
#include <math.h>
#include <string.h>

#pragma STDC FP_CONTRACT OFF

// The evaluator of the span IR that CIKL and Metal-source kernels compile to (see
// Sources/Cyanotype/Kernels/Language/KernelProgram.swift): one dispatch per instruction per
// span, a plain loop over the span's lanes inside, which the compiler vectorises.

enum {
    OP_MOV, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MIN, OP_MAX, OP_POW, OP_ATAN2, OP_MOD, OP_STEP,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR,
    OP_NEG, OP_ABS, OP_SIGN, OP_FLOOR, OP_CEIL, OP_FRACT, OP_TRUNC, OP_SQRT, OP_RSQRT, OP_EXP, OP_LOG,
    OP_EXP2, OP_LOG2, OP_SIN, OP_COS, OP_TAN, OP_ASIN, OP_ACOS, OP_ATAN, OP_NOT,
    OP_SELECT, OP_SAMPLE, OP_JUMP_IF_NONE, OP_JUMP, OP_LOOP_GUARD, OP_LOOP_RESET
};

static inline void texel(const cyan_ir_sampler *s, int64_t x, int64_t y, float *p) {
    int64_t px = x - s->min_x, py = y - s->min_y;
    if (px < 0 || py < 0 || px >= s->width || py >= s->height) {
        p[0] = p[1] = p[2] = p[3] = 0;
        return;
    }
    const float *q = s->pixels + 4 * (py * s->row_stride + px);
    p[0] = q[0]; p[1] = q[1]; p[2] = q[2]; p[3] = q[3];
}

static void sample_span(const cyan_ir_sampler *s, const float *x, const float *y, float *d, int64_t lanes, int64_t n) {
    for (int64_t k = 0; k < n; k++) {
        float u = x[k] - 0.5f, v = y[k] - 0.5f;
        float out[4] = {0, 0, 0, 0};
        if (isfinite(u) && isfinite(v) && fabsf(u) < 1e9f && fabsf(v) < 1e9f) {
            float fx = floorf(u), fy = floorf(v);
            int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
            float tx = u - fx, ty = v - fy;
            float a[4], b[4], c[4], e[4];
            texel(s, x0, y0, a); texel(s, x0 + 1, y0, b); texel(s, x0, y0 + 1, c); texel(s, x0 + 1, y0 + 1, e);
            for (int j = 0; j < 4; j++) {
                float bottom = a[j] * (1 - tx) + b[j] * tx;
                float top = c[j] * (1 - tx) + e[j] * tx;
                out[j] = bottom * (1 - ty) + top * ty;
            }
        }
        d[k] = out[0]; d[lanes + k] = out[1]; d[2 * lanes + k] = out[2]; d[3 * lanes + k] = out[3];
    }
}

#define UNARY(expr) for (int64_t k = 0; k < n; k++) { float x = A[k]; D[k] = (expr); } break
#define BINARY(expr) for (int64_t k = 0; k < n; k++) { float x = A[k], y = B[k]; D[k] = (expr); } break

void cyan_ir_execute(const cyan_ir_instruction *code, int64_t count, float *regs, int64_t lanes, int64_t n,
                     const cyan_ir_sampler *samplers, int64_t sampler_count, int64_t *loops, int64_t max_iterations) {
    int64_t pc = 0;
    while (pc < count) {
        const cyan_ir_instruction ins = code[pc++];
        float *D = regs + (int64_t)ins.d * lanes;
        const float *A = regs + (int64_t)ins.a * lanes;
        const float *B = regs + (int64_t)ins.b * lanes;
        const float *C = regs + (int64_t)ins.c * lanes;
        switch (ins.op) {
        case OP_MOV: if (D != A) memmove(D, A, (size_t)n * sizeof(float)); break;
        case OP_ADD: BINARY(x + y);
        case OP_SUB: BINARY(x - y);
        case OP_MUL: BINARY(x * y);
        case OP_DIV: BINARY(x / y);
        case OP_MIN: BINARY(y < x ? y : x);
        case OP_MAX: BINARY(y >= x ? y : x);
        case OP_POW: BINARY(powf(x, y));
        case OP_ATAN2: BINARY(atan2f(x, y));
        case OP_MOD: BINARY(x - y * floorf(x / y));
        case OP_STEP: BINARY(y < x ? 0.0f : 1.0f);
        case OP_LT: BINARY(x < y ? 1.0f : 0.0f);
        case OP_LE: BINARY(x <= y ? 1.0f : 0.0f);
        case OP_GT: BINARY(x > y ? 1.0f : 0.0f);
        case OP_GE: BINARY(x >= y ? 1.0f : 0.0f);
        case OP_EQ: BINARY(x == y ? 1.0f : 0.0f);
        case OP_NE: BINARY(x != y ? 1.0f : 0.0f);
        case OP_AND: BINARY((x != 0 && y != 0) ? 1.0f : 0.0f);
        case OP_OR: BINARY((x != 0 || y != 0) ? 1.0f : 0.0f);
        case OP_NEG: UNARY(-x);
        case OP_ABS: UNARY(fabsf(x));
        case OP_SIGN: UNARY(x > 0 ? 1.0f : (x < 0 ? -1.0f : 0.0f));
        case OP_FLOOR: UNARY(floorf(x));
        case OP_CEIL: UNARY(ceilf(x));
        case OP_FRACT: UNARY(x - floorf(x));
        case OP_TRUNC: UNARY(truncf(x));
        case OP_SQRT: UNARY(sqrtf(x));
        case OP_RSQRT: UNARY(1.0f / sqrtf(x));
        case OP_EXP: UNARY(expf(x));
        case OP_LOG: UNARY(logf(x));
        case OP_EXP2: UNARY(exp2f(x));
        case OP_LOG2: UNARY(log2f(x));
        case OP_SIN: UNARY(sinf(x));
        case OP_COS: UNARY(cosf(x));
        case OP_TAN: UNARY(tanf(x));
        case OP_ASIN: UNARY(asinf(x));
        case OP_ACOS: UNARY(acosf(x));
        case OP_ATAN: UNARY(atanf(x));
        case OP_NOT: UNARY(x == 0 ? 1.0f : 0.0f);
        case OP_SELECT:
            for (int64_t k = 0; k < n; k++) D[k] = A[k] != 0 ? B[k] : C[k];
            break;
        case OP_SAMPLE:
            if (ins.c >= 0 && ins.c < sampler_count) {
                sample_span(&samplers[ins.c], A, B, D, lanes, n);
            } else {
                for (int j = 0; j < 4; j++) memset(D + j * lanes, 0, (size_t)n * sizeof(float));
            }
            break;
        case OP_JUMP_IF_NONE: {
            int any = 0;
            for (int64_t k = 0; k < n; k++) if (A[k] != 0) { any = 1; break; }
            if (!any) pc = ins.d;
            break;
        }
        case OP_JUMP: pc = ins.d; break;
        case OP_LOOP_GUARD:
            if (++loops[ins.a] > max_iterations) pc = ins.d;
            break;
        case OP_LOOP_RESET: loops[ins.a] = 0; break;
        default: break;
        }
    }
}

void cyan_ir_deinterleave(float *planes, int64_t lanes, const float *pixels, int64_t n) {
    float *r = planes, *g = planes + lanes, *b = planes + 2 * lanes, *a = planes + 3 * lanes;
    for (int64_t k = 0; k < n; k++) {
        r[k] = pixels[4 * k]; g[k] = pixels[4 * k + 1]; b[k] = pixels[4 * k + 2]; a[k] = pixels[4 * k + 3];
    }
}

void cyan_ir_interleave(float *pixels, const float *regs, int64_t lanes, int32_t r0, int32_t r1, int32_t r2, int32_t r3, int64_t n) {
    const float *r = regs + (int64_t)r0 * lanes, *g = regs + (int64_t)r1 * lanes, *b = regs + (int64_t)r2 * lanes, *a = regs + (int64_t)r3 * lanes;
    for (int64_t k = 0; k < n; k++) {
        pixels[4 * k] = r[k]; pixels[4 * k + 1] = g[k]; pixels[4 * k + 2] = b[k]; pixels[4 * k + 3] = a[k];
    }
}

void cyan_ir_coordinates(float *dx, float *dy, int64_t x, int64_t y, int64_t n) {
    float fy = (float)y + 0.5f;
    for (int64_t k = 0; k < n; k++) {
        dx[k] = (float)(x + k) + 0.5f;
        dy[k] = fy;
    }
}
