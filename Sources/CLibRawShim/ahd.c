// Cyanotype's AHD demosaic (Hirakawa and Parks' adaptive homogeneity-directed interpolation),
// written for speed: the image is cut into tiles that run on all cores (through the caller's
// parallel loop), each tile read once with a mirrored margin, so no tile waits for another
// and the borders need no special case. It replaces LibRaw's single-threaded AHD inside
// LibRaw's own development (black levels, white balance, colour matrix stay LibRaw's).
//
// Per tile: green interpolated horizontally and vertically (the neighbours' mean corrected by
// the colour's second difference, clamped to the neighbours, as AHD does); red and blue from
// each green plane by colour differences; both candidates to CIELab; per pixel, in each
// direction, the count of neighbours within the smaller of the two directions' largest
// lightness and colour steps (homogeneity), summed over 3x3; the more homogeneous candidate
// wins, a tie takes their mean. Only the channels the sensor did not record are written, so
// tiles that read the recorded channel around them never race with one another.
#include "ahd.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { TILE = 128, MARGIN = 6 };

typedef struct {
    uint16_t (*image)[4];
    int width, height;
    /// The colour (0 R, 1 G, 2 B) of each site of the 2x2 pattern, [row & 1][col & 1].
    int pattern[2][2];
    float xyz_cam[3][3];
    int tiles_x, tiles;
    atomic_int next;
} ahd_job;

static inline int mirror(int v, int n) {
    if (v < 0) v = -v;
    if (v >= n) v = 2 * (n - 1) - v;
    return v;
}

static inline float minf(float a, float b) { return a < b ? a : b; }
static inline float maxf(float a, float b) { return a > b ? a : b; }
static inline float absf(float a) { return a < 0 ? -a : a; }

/// CIELab's f(t) (t relative to white): the cube root above 0.008856 (from the bits, then two
/// Newton steps: 1e-6 relative), the linear segment below. Branch-free, so loops vectorize.
static inline float lab_f(float t) {
    float x = t > 1e-6f ? t : 1e-6f;
    union {
        float f;
        uint32_t u;
    } b = {x};
    b.u = b.u / 3 + 709921077u;
    float y = b.f;
    y = (2 * y + x / (y * y)) * (1.0f / 3);
    y = (2 * y + x / (y * y)) * (1.0f / 3);
    return t > 0.008856f ? y : 7.787f * t + 16.0f / 116;
}

/// Working planes of one tile (with its margin), reused for every tile a worker takes:
/// the recorded samples, and per direction the green plane, R, G, B, L, a, b and the
/// homogeneity counts.
typedef struct {
    float *cfa, *g[2], *r[2], *b[2], *l[2], *a[2], *bb[2], *homo[2];
} ahd_planes;

enum { PLANES = 15 };

static void run_tile(ahd_job *job, ahd_planes *p, int tile) {
    const int W = job->width, H = job->height;
    const int ty0 = (tile / job->tiles_x) * TILE, tx0 = (tile % job->tiles_x) * TILE;
    const int th = H - ty0 < TILE ? H - ty0 : TILE, tw = W - tx0 < TILE ? W - tx0 : TILE;
    const int TH = th + 2 * MARGIN, TW = tw + 2 * MARGIN;
    const int oy = ty0 - MARGIN, ox = tx0 - MARGIN;
    // Tile origins and the margin are even, so a tile pixel's colour is pattern[y & 1][x & 1];
    // mirroring keeps the parity, so the margin has the right colours too.
    int (*pat)[2] = job->pattern;
    float *cfa = p->cfa;
    for (int y = 0; y < TH; y++) {
        const int Y = mirror(oy + y, H);
        const uint16_t(*row)[4] = job->image + (size_t)Y * W;
        float *out = cfa + (size_t)y * TW;
        const int c0 = pat[y & 1][0], c1 = pat[y & 1][1];
        if (ox >= 0 && ox + TW <= W) {
            for (int x = 0; x < TW; x += 2) {
                out[x] = row[ox + x][c0];
                out[x + 1] = row[ox + x + 1][c1];
            }
        } else {
            for (int x = 0; x < TW; x++) out[x] = row[mirror(ox + x, W)][(x & 1) ? c1 : c0];
        }
    }
    // Green, horizontally (g[0]) and vertically (g[1]): at green sites the sample, else the
    // neighbours' mean corrected by the second difference, clamped to the neighbours.
    for (int y = 2; y < TH - 2; y++) {
        float *gh = p->g[0] + (size_t)y * TW, *gv = p->g[1] + (size_t)y * TW;
        const float *c = cfa + (size_t)y * TW;
        const int first = pat[y & 1][0] == 1 ? 1 : 0;  // the first non-green x of the row (mod 2)
        for (int x = 2; x < TW - 2; x++) gh[x] = gv[x] = c[x];
        for (int x = 2 + first; x < TW - 2; x += 2) {
            float l = c[x - 1], r = c[x + 1];
            float h = (l + r) * 0.5f + (2 * c[x] - c[x - 2] - c[x + 2]) * 0.25f;
            gh[x] = minf(maxf(h, minf(l, r)), maxf(l, r));
            float u = c[x - TW], d = c[x + TW];
            float v = (u + d) * 0.5f + (2 * c[x] - c[x - 2 * TW] - c[x + 2 * TW]) * 0.25f;
            gv[x] = minf(maxf(v, minf(u, d)), maxf(u, d));
        }
    }
    // Red and blue from each direction's green by colour differences; then CIELab.
    const float(*m)[3] = (const float(*)[3])job->xyz_cam;
    for (int d = 0; d < 2; d++) {
        const float *g = p->g[d];
        for (int y = 3; y < TH - 3; y++) {
            const size_t o = (size_t)y * TW;
            const float *c = cfa + o, *gr = g + o;
            float *plane[3] = {p->r[d] + o, NULL, p->b[d] + o};
            for (int x0 = 3; x0 < 5; x0++) {
                const int col = pat[y & 1][x0 & 1];
                if (col == 1) {
                    float *hp = plane[pat[y & 1][(x0 + 1) & 1]], *vp = plane[pat[(y + 1) & 1][x0 & 1]];
                    for (int x = x0; x < TW - 3; x += 2) {
                        hp[x] = gr[x] + ((c[x - 1] - gr[x - 1]) + (c[x + 1] - gr[x + 1])) * 0.5f;
                        vp[x] = gr[x] + ((c[x - TW] - gr[x - TW]) + (c[x + TW] - gr[x + TW])) * 0.5f;
                    }
                } else {
                    float *own = plane[col], *other = plane[2 - col];
                    for (int x = x0; x < TW - 3; x += 2) {
                        own[x] = c[x];
                        other[x] = gr[x] + ((c[x - TW - 1] - gr[x - TW - 1]) + (c[x - TW + 1] - gr[x - TW + 1]) +
                                            (c[x + TW - 1] - gr[x + TW - 1]) + (c[x + TW + 1] - gr[x + TW + 1])) *
                                               0.25f;
                    }
                }
            }
            float *r = p->r[d] + o, *b = p->b[d] + o, *L = p->l[d] + o, *A = p->a[d] + o, *B = p->bb[d] + o;
            const float scale = 1.0f / 65535;
            for (int x = 3; x < TW - 3; x++) {
                float rr = minf(maxf(r[x], 0), 65535), gg = gr[x], bv = minf(maxf(b[x], 0), 65535);
                r[x] = rr;
                b[x] = bv;
                float fx = lab_f((m[0][0] * rr + m[0][1] * gg + m[0][2] * bv) * scale);
                float fy = lab_f((m[1][0] * rr + m[1][1] * gg + m[1][2] * bv) * scale);
                float fz = lab_f((m[2][0] * rr + m[2][1] * gg + m[2][2] * bv) * scale);
                L[x] = 116 * fy - 16;
                A[x] = 500 * (fx - fy);
                B[x] = 200 * (fy - fz);
            }
        }
    }
    // Homogeneity: neighbours within the smaller of the two directions' largest steps.
    for (int y = 4; y < TH - 4; y++) {
        const size_t o = (size_t)y * TW;
        const float *L0 = p->l[0] + o, *A0 = p->a[0] + o, *B0 = p->bb[0] + o;
        const float *L1 = p->l[1] + o, *A1 = p->a[1] + o, *B1 = p->bb[1] + o;
        float *h0 = p->homo[0] + o, *h1 = p->homo[1] + o;
        const ptrdiff_t s = TW;
#define DL(P, x, n) absf(P[x] - P[x + (n)])
#define DC(A, B, x, n) ((A[x] - A[x + (n)]) * (A[x] - A[x + (n)]) + (B[x] - B[x + (n)]) * (B[x] - B[x + (n)]))
        for (int x = 4; x < TW - 4; x++) {
            float l0l = DL(L0, x, -1), l0r = DL(L0, x, 1), l0u = DL(L0, x, -s), l0d = DL(L0, x, s);
            float l1l = DL(L1, x, -1), l1r = DL(L1, x, 1), l1u = DL(L1, x, -s), l1d = DL(L1, x, s);
            float c0l = DC(A0, B0, x, -1), c0r = DC(A0, B0, x, 1), c0u = DC(A0, B0, x, -s), c0d = DC(A0, B0, x, s);
            float c1l = DC(A1, B1, x, -1), c1r = DC(A1, B1, x, 1), c1u = DC(A1, B1, x, -s), c1d = DC(A1, B1, x, s);
            float leps = minf(maxf(l0l, l0r), maxf(l1u, l1d));
            float ceps = minf(maxf(c0l, c0r), maxf(c1u, c1d));
            h0[x] = (float)((l0l <= leps && c0l <= ceps) + (l0r <= leps && c0r <= ceps) + (l0u <= leps && c0u <= ceps) +
                            (l0d <= leps && c0d <= ceps));
            h1[x] = (float)((l1l <= leps && c1l <= ceps) + (l1r <= leps && c1r <= ceps) + (l1u <= leps && c1u <= ceps) +
                            (l1d <= leps && c1d <= ceps));
        }
#undef DL
#undef DC
    }
    // The more homogeneous direction over 3x3; only the channels the sensor did not record.
    for (int y = MARGIN; y < MARGIN + th; y++) {
        uint16_t(*row)[4] = job->image + (size_t)(oy + y) * W + ox;
        const int ce = pat[y & 1][0], co = pat[y & 1][1];
        for (int x = MARGIN; x < MARGIN + tw; x++) {
            const size_t i = (size_t)y * TW + x;
            float hm[2];
            for (int d = 0; d < 2; d++) {
                const float *h = p->homo[d];
                hm[d] = h[i - TW - 1] + h[i - TW] + h[i - TW + 1] + h[i - 1] + h[i] + h[i + 1] + h[i + TW - 1] + h[i + TW] +
                        h[i + TW + 1];
            }
            const float wa = hm[0] > hm[1] ? 1 : (hm[1] > hm[0] ? 0 : 0.5f), wb = 1 - wa;
            const int col = (x & 1) ? co : ce;
            const float r = p->r[0][i] * wa + p->r[1][i] * wb, g = p->g[0][i] * wa + p->g[1][i] * wb,
                        b = p->b[0][i] * wa + p->b[1][i] * wb;
            if (col != 0) row[x][0] = (uint16_t)(r + 0.5f);
            if (col != 1) row[x][1] = (uint16_t)(g + 0.5f);
            if (col != 2) row[x][2] = (uint16_t)(b + 0.5f);
        }
    }
}

static void worker(void *context, int index) {
    (void)index;
    ahd_job *job = context;
    const size_t n = (size_t)(TILE + 2 * MARGIN) * (TILE + 2 * MARGIN);
    float *block = calloc(n * PLANES, sizeof(float));
    if (block == NULL) return;
    ahd_planes p;
    float **slots[PLANES] = {&p.cfa,  &p.g[0],  &p.g[1],    &p.r[0],    &p.r[1],    &p.b[0],    &p.b[1],   &p.l[0],
                             &p.l[1], &p.a[0],  &p.a[1],    &p.bb[0],   &p.bb[1],   &p.homo[0], &p.homo[1]};
    for (int k = 0; k < PLANES; k++) *slots[k] = block + k * n;
    for (;;) {
        int tile = atomic_fetch_add(&job->next, 1);
        if (tile >= job->tiles) break;
        run_tile(job, &p, tile);
    }
    free(block);
}

int cy_ahd_pattern(unsigned filters, int pattern[2][2]) {
    // A 2x2 Bayer pattern repeats every two rows: LibRaw's 32-bit filter word then holds
    // the same byte four times.
    if (filters == 0 || filters != (filters & 0xff) * 0x01010101u) return 0;
    int count[3] = {0, 0, 0};
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++) {
            int v = (int)(filters >> (((r << 1 & 14) | (c & 1)) << 1) & 3);
            if (v == 3) v = 1;
            pattern[r][c] = v;
            count[v]++;
        }
    return count[0] == 1 && count[1] == 2 && count[2] == 1 && pattern[0][0] != pattern[1][1] ? 1 : 0;
}

int cy_ahd_demosaic(uint16_t (*image)[4], int width, int height, unsigned filters, const float rgb_cam[3][4],
                    cy_parallel_for parallel, int workers) {
    ahd_job job;
    memset(&job, 0, sizeof job);
    if (width < 2 * MARGIN || height < 2 * MARGIN || !cy_ahd_pattern(filters, job.pattern)) return -1;
    job.image = image;
    job.width = width;
    job.height = height;
    // Camera RGB -> XYZ relative to D65 white (sRGB's matrix after the camera's), as LibRaw's AHD.
    static const double xyz_rgb[3][3] = {
        {0.4124564, 0.3575761, 0.1804375}, {0.2126729, 0.7151522, 0.0721750}, {0.0193339, 0.1191920, 0.9503041}};
    static const double white[3] = {0.950456, 1, 1.088754};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += xyz_rgb[i][k] * rgb_cam[k][j];
            job.xyz_cam[i][j] = (float)(s / white[i]);
        }
    job.tiles_x = (width + TILE - 1) / TILE;
    job.tiles = job.tiles_x * ((height + TILE - 1) / TILE);
    atomic_init(&job.next, 0);
    if (workers < 1) workers = 1;
    if (workers > job.tiles) workers = job.tiles;
    if (parallel != NULL && workers > 1) {
        parallel(workers, worker, &job);
    } else {
        worker(&job, 0);
    }
    // A worker that could not get its memory leaves tiles undone: the others take them, but
    // if every worker failed, say so.
    return atomic_load(&job.next) >= job.tiles ? 0 : -1;
}
