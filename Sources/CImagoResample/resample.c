#include "imago_resample.h"

#if defined(__x86_64__) && defined(__clang__) && defined(__linux__)
#define IMAGO_CLONES __attribute__((target_clones("avx2", "sse4.1", "default")))
#else
#define IMAGO_CLONES
#endif

static inline uint8_t level(int32_t v) {
    int32_t r = (v + 8192) >> 14;
    return (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
}

IMAGO_CLONES
void imago_lanczos_horizontal(const uint8_t *row, uint8_t *out, const intptr_t *starts, const intptr_t *counts,
                              intptr_t taps, intptr_t width, const int32_t *weights) {
    for (intptr_t x = 0; x < width; x++) {
        int32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
        const uint8_t *p = row + starts[x] * 4;
        const int32_t *w = weights + x * taps;
        intptr_t n = counts[x];
        for (intptr_t k = 0; k < n; k++) {
            int32_t wk = w[k];
            c0 += (int32_t)p[0] * wk;
            c1 += (int32_t)p[1] * wk;
            c2 += (int32_t)p[2] * wk;
            c3 += (int32_t)p[3] * wk;
            p += 4;
        }
        uint8_t *o = out + x * 4;
        o[0] = level(c0);
        o[1] = level(c1);
        o[2] = level(c2);
        o[3] = level(c3);
    }
}

IMAGO_CLONES
void imago_lanczos_accumulate(int32_t *restrict acc, const uint8_t *restrict row, intptr_t n, int32_t weight) {
    for (intptr_t i = 0; i < n; i++) acc[i] += (int32_t)row[i] * weight;
}
