// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include "imago_glue.h"
#include <stdlib.h>

/*
 * The per-pixel loop of an 8-bit matrix/TRC-to-matrix/TRC conversion, with the same tables and
 * fixed point as lcms2's own optimisation of such transforms (input curves to 1.14 fixed point,
 * a 1.14 matrix, a 16385-entry output curve). lcms2 runs those tables through its generic
 * per-pixel formatters, several indirect calls a pixel; this loop is the same arithmetic inline.
 * The tables are built, and checked against lcms2's transform, by ColorManagement in Swift.
 */
#if defined(__x86_64__) && defined(__clang__) && defined(__linux__)
#define IMAGO_COLOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define IMAGO_COLOR_CLONES
#endif

imago_matshaper8 *imago_matshaper8_create(void) { return calloc(1, sizeof(imago_matshaper8)); }
void imago_matshaper8_destroy(imago_matshaper8 *t) { free(t); }
uint16_t *imago_matshaper8_input(imago_matshaper8 *t, int channel) { return t->input[channel]; }
int32_t *imago_matshaper8_matrix(imago_matshaper8 *t) { return t->matrix; }
uint8_t *imago_matshaper8_output(imago_matshaper8 *t) { return t->output; }

static inline int32_t clamp_linear(int32_t v) {
    return v < 0 ? 0 : v > IMAGO_MATSHAPER_ONE ? IMAGO_MATSHAPER_ONE : v;
}

IMAGO_COLOR_CLONES
void imago_matshaper8_apply(const imago_matshaper8 *t, uint8_t *pixels, size_t count, int bytes_per_pixel,
                            int red, int green, int blue) {
    const int32_t *m = t->matrix;
    for (size_t i = 0; i < count; i++, pixels += bytes_per_pixel) {
        int32_t r = t->input[0][pixels[red]];
        int32_t g = t->input[1][pixels[green]];
        int32_t b = t->input[2][pixels[blue]];
        int32_t lr = (m[0] * r + m[1] * g + m[2] * b + (1 << 13)) >> 14;
        int32_t lg = (m[3] * r + m[4] * g + m[5] * b + (1 << 13)) >> 14;
        int32_t lb = (m[6] * r + m[7] * g + m[8] * b + (1 << 13)) >> 14;
        pixels[red] = t->output[clamp_linear(lr)];
        pixels[green] = t->output[clamp_linear(lg)];
        pixels[blue] = t->output[clamp_linear(lb)];
    }
}
