// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include "imago_resample.h"
#include <string.h>

#if defined(__x86_64__) && defined(__clang__) && defined(__linux__)
#define IMAGO_CLONES __attribute__((target_clones("avx2", "sse4.1", "default")))
#define IMAGO_X86 1
#include <immintrin.h>
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

#ifdef IMAGO_X86
// Two taps per multiply: pmaddwd takes (pixel k channel c, pixel k+1 channel c) as 16-bit pairs
// against (w[k], w[k+1]) and sums each pair into 32 bits, the same integers as the scalar loop.
__attribute__((target("ssse3")))
static void horizontal_pairs_ssse3(const uint8_t *row, uint8_t *out, const intptr_t *starts, const intptr_t *counts,
                                   intptr_t stride, intptr_t width, const int32_t *pairs) {
    // Bytes of pixels 0 and 1 (or 2 and 3) to (p0c, p1c) 16-bit pairs, channel by channel.
    const __m128i lo = _mm_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1);
    const __m128i hi = _mm_setr_epi8(8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1);
    const __m128i half = _mm_set1_epi32(8192);
    for (intptr_t x = 0; x < width; x++) {
        const uint8_t *p = row + starts[x] * 4;
        const int32_t *w = pairs + x * stride;
        intptr_t n = counts[x], k = 0;
        __m128i acc = _mm_setzero_si128();
        for (; k + 3 < n; k += 4) {
            __m128i px = _mm_loadu_si128((const __m128i *)(p + k * 4));
            acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_shuffle_epi8(px, lo), _mm_set1_epi32(w[k / 2])));
            acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_shuffle_epi8(px, hi), _mm_set1_epi32(w[k / 2 + 1])));
        }
        if (k + 1 < n) {
            __m128i px = _mm_loadl_epi64((const __m128i *)(p + k * 4));
            acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_shuffle_epi8(px, lo), _mm_set1_epi32(w[k / 2])));
            k += 2;
        }
        if (k < n) {   // the last tap alone: its pair's second weight is zero, and only 4 bytes are read
            int32_t v;
            memcpy(&v, p + k * 4, 4);
            acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_shuffle_epi8(_mm_cvtsi32_si128(v), lo), _mm_set1_epi32(w[k / 2])));
        }
        acc = _mm_srai_epi32(_mm_add_epi32(acc, half), 14);
        acc = _mm_packus_epi16(_mm_packs_epi32(acc, acc), acc);
        int32_t r = _mm_cvtsi128_si32(acc);
        memcpy(out + x * 4, &r, 4);
    }
}

__attribute__((target("ssse3")))
static void finish_ssse3(const int32_t *acc, uint8_t *out, intptr_t width, intptr_t alpha) {
    const __m128i half = _mm_set1_epi32(8192);
    const __m128i spread = _mm_setr_epi8((char)alpha, (char)alpha, (char)alpha, (char)alpha,
                                         (char)(alpha + 4), (char)(alpha + 4), (char)(alpha + 4), (char)(alpha + 4),
                                         (char)(alpha + 8), (char)(alpha + 8), (char)(alpha + 8), (char)(alpha + 8),
                                         (char)(alpha + 12), (char)(alpha + 12), (char)(alpha + 12), (char)(alpha + 12));
    intptr_t x = 0;
    for (; x + 3 < width; x += 4) {
        const int32_t *a = acc + x * 4;
        __m128i v0 = _mm_srai_epi32(_mm_add_epi32(_mm_loadu_si128((const __m128i *)a), half), 14);
        __m128i v1 = _mm_srai_epi32(_mm_add_epi32(_mm_loadu_si128((const __m128i *)(a + 4)), half), 14);
        __m128i v2 = _mm_srai_epi32(_mm_add_epi32(_mm_loadu_si128((const __m128i *)(a + 8)), half), 14);
        __m128i v3 = _mm_srai_epi32(_mm_add_epi32(_mm_loadu_si128((const __m128i *)(a + 12)), half), 14);
        __m128i px = _mm_packus_epi16(_mm_packs_epi32(v0, v1), _mm_packs_epi32(v2, v3));
        // Every channel at most its pixel's alpha (min(alpha, alpha) keeps alpha itself).
        px = _mm_min_epu8(px, _mm_shuffle_epi8(px, spread));
        _mm_storeu_si128((__m128i *)(out + x * 4), px);
    }
    for (; x < width; x++) {
        uint8_t a = level(acc[x * 4 + alpha]);
        for (int c = 0; c < 4; c++) {
            uint8_t v = level(acc[x * 4 + c]);
            out[x * 4 + c] = v < a ? v : a;
        }
    }
}
#endif

static void horizontal_pairs_scalar(const uint8_t *row, uint8_t *out, const intptr_t *starts, const intptr_t *counts,
                                    intptr_t stride, intptr_t width, const int32_t *pairs) {
    for (intptr_t x = 0; x < width; x++) {
        int32_t c[4] = {0, 0, 0, 0};
        const uint8_t *p = row + starts[x] * 4;
        const int32_t *w = pairs + x * stride;
        for (intptr_t k = 0; k < counts[x]; k++) {
            uint32_t pair = (uint32_t)w[k / 2];
            int32_t wk = (int16_t)(k % 2 == 0 ? pair & 0xFFFF : pair >> 16);
            for (int ch = 0; ch < 4; ch++) c[ch] += (int32_t)p[k * 4 + ch] * wk;
        }
        for (int ch = 0; ch < 4; ch++) out[x * 4 + ch] = level(c[ch]);
    }
}

static void finish_scalar(const int32_t *acc, uint8_t *out, intptr_t width, intptr_t alpha) {
    for (intptr_t x = 0; x < width; x++) {
        uint8_t a = level(acc[x * 4 + alpha]);
        for (int c = 0; c < 4; c++) {
            uint8_t v = level(acc[x * 4 + c]);
            out[x * 4 + c] = v < a ? v : a;
        }
    }
}

#ifdef IMAGO_X86
enum { IMAGO_CPU_SSSE3 = 1, IMAGO_CPU_SSE41 = 2 };

// The vector extensions the kernels pick from, asked of the CPU once.
static int cpu_features(void) {
    static int known = -1;   // a benign race: every thread computes the same answer
    if (known < 0) {
        __builtin_cpu_init();
        known = (__builtin_cpu_supports("ssse3") ? IMAGO_CPU_SSSE3 : 0) | (__builtin_cpu_supports("sse4.1") ? IMAGO_CPU_SSE41 : 0);
    }
    return known;
}
#endif

void imago_lanczos_horizontal_pairs(const uint8_t *row, uint8_t *out, const intptr_t *starts, const intptr_t *counts,
                                    intptr_t stride, intptr_t width, const int32_t *pairs) {
#ifdef IMAGO_X86
    if (cpu_features() & IMAGO_CPU_SSSE3) {
        horizontal_pairs_ssse3(row, out, starts, counts, stride, width, pairs);
        return;
    }
#endif
    horizontal_pairs_scalar(row, out, starts, counts, stride, width, pairs);
}

void imago_lanczos_finish(const int32_t *acc, uint8_t *out, intptr_t width, intptr_t alpha) {
#ifdef IMAGO_X86
    if (cpu_features() & IMAGO_CPU_SSSE3) {
        finish_ssse3(acc, out, width, alpha);
        return;
    }
#endif
    finish_scalar(acc, out, width, alpha);
}

IMAGO_CLONES
void imago_lanczos_accumulate(int32_t *restrict acc, const uint8_t *restrict row, intptr_t n, int32_t weight) {
    for (intptr_t i = 0; i < n; i++) acc[i] += (int32_t)row[i] * weight;
}

// The box pre-shrink. Each output pixel's four channel sums are one 128-bit vector; two input
// pixels at a time are widened to 16 bits and added (a run of up to 512 pixels cannot overflow
// a 16-bit lane: 256 × 255), then folded to 32 bits.
#ifdef IMAGO_X86
__attribute__((target("sse4.1")))
static void box_add_sse41(const uint8_t *row, uint32_t *sums, intptr_t full, intptr_t kx) {
    for (intptr_t ox = 0; ox < full; ox++) {
        const uint8_t *p = row + ox * kx * 4;
        __m128i pairs = _mm_setzero_si128();
        intptr_t k = 0;
        for (; k + 1 < kx; k += 2) pairs = _mm_add_epi16(pairs, _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(p + k * 4))));
        __m128i sum = _mm_add_epi32(_mm_cvtepu16_epi32(pairs), _mm_cvtepu16_epi32(_mm_srli_si128(pairs, 8)));
        if (k < kx) {
            int32_t v;
            memcpy(&v, p + k * 4, 4);
            sum = _mm_add_epi32(sum, _mm_cvtepu8_epi32(_mm_cvtsi32_si128(v)));
        }
        __m128i *s = (__m128i *)(sums + ox * 4);
        _mm_storeu_si128(s, _mm_add_epi32(_mm_loadu_si128(s), sum));
    }
}
#endif

static void box_add_columns(const uint8_t *row, uint32_t *sums, intptr_t from, intptr_t to, intptr_t kx, intptr_t width) {
    for (intptr_t ox = from; ox < to; ox++) {
        intptr_t x0 = ox * kx, x1 = x0 + kx < width ? x0 + kx : width;
        uint32_t c[4] = {0, 0, 0, 0};
        for (intptr_t x = x0; x < x1; x++)
            for (int ch = 0; ch < 4; ch++) c[ch] += row[x * 4 + ch];
        for (int ch = 0; ch < 4; ch++) sums[ox * 4 + ch] += c[ch];
    }
}

IMAGO_CLONES
void imago_box_add(const uint8_t *row, uint32_t *restrict sums, intptr_t width, intptr_t kx) {
    if (kx == 1) {
        for (intptr_t i = 0; i < width * 4; i++) sums[i] += row[i];
        return;
    }
    intptr_t full = width / kx, outputs = (width + kx - 1) / kx;
#ifdef IMAGO_X86
    if (kx <= 512 && (cpu_features() & IMAGO_CPU_SSE41)) {
        box_add_sse41(row, sums, full, kx);
        box_add_columns(row, sums, full, outputs, kx, width);
        return;
    }
#endif
    box_add_columns(row, sums, 0, outputs, kx, width);
}

// (s + n/2) / n for every sum of one block size n, without a division: a float reciprocal is
// within one of the quotient (s < 2^24 is exact in a float, and q ≤ 255), and one step each way
// makes it exact. The loop vectorizes.
IMAGO_CLONES
static void box_divide(uint32_t *restrict sums, uint8_t *restrict out, intptr_t count, uint32_t n) {
    uint32_t half = n / 2;
    float inverse = 1.0f / (float)n;
    for (intptr_t i = 0; i < count; i++) {
        uint32_t x = sums[i] + half;
        uint32_t q = (uint32_t)((float)x * inverse);
        q += (q + 1) * n <= x;
        q -= q * n > x;
        out[i] = (uint8_t)q;
        sums[i] = 0;
    }
}

void imago_box_emit(uint32_t *sums, uint8_t *out, intptr_t width, intptr_t kx, intptr_t rows) {
    intptr_t full = width / kx, outputs = (width + kx - 1) / kx;
    uint64_t block = (uint64_t)kx * (uint64_t)rows;
    if (block <= 65536) {
        box_divide(sums, out, full * 4, (uint32_t)block);
    } else {
        for (intptr_t i = 0; i < full * 4; i++) {
            out[i] = (uint8_t)((sums[i] + block / 2) / block);
            sums[i] = 0;
        }
    }
    for (intptr_t ox = full; ox < outputs; ox++) {   // the last, partial block
        uint64_t n = (uint64_t)(width - ox * kx) * (uint64_t)rows;
        for (int ch = 0; ch < 4; ch++) {
            out[ox * 4 + ch] = (uint8_t)((sums[ox * 4 + ch] + n / 2) / n);
            sums[ox * 4 + ch] = 0;
        }
    }
}
