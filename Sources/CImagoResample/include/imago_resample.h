#ifndef IMAGO_RESAMPLE_H
#define IMAGO_RESAMPLE_H

#include <stdint.h>

/// The inner loops of ImagoProcessing's Lanczos resampler, in C so that they are built for
/// the machine's vector units (AVX2 or SSE4.1, picked at load time), which Swift code cannot
/// ask for per function. Integer arithmetic exactly as the Swift loops: 14-bit weights, Int32
/// accumulators, rounding by (v + 8192) >> 14.

/// One row through the horizontal pass: for each of `width` outputs, `counts[x]` taps from
/// pixel `starts[x]` of `row` (4 bytes a pixel), weights at `weights + x * taps`.
void imago_lanczos_horizontal(const uint8_t *row, uint8_t *out, const intptr_t *starts, const intptr_t *counts,
                              intptr_t taps, intptr_t width, const int32_t *weights);

/// `acc[i] += row[i] * weight` for `n` channels: one tap of the vertical pass.
void imago_lanczos_accumulate(int32_t *acc, const uint8_t *row, intptr_t n, int32_t weight);

#endif
