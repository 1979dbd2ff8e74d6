// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

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

/// The horizontal pass with the weights as 16-bit pairs (`pairs[x * stride + j]` holds tap 2j in
/// its low half and tap 2j + 1 in its high half, zero past `counts[x]`): two taps a multiply-add
/// (SSSE3 `pmaddwd`) where the CPU has it, the same integers as `imago_lanczos_horizontal`.
/// Reads no byte past pixel `starts[x] + counts[x] - 1`.
void imago_lanczos_horizontal_pairs(const uint8_t *row, uint8_t *out, const intptr_t *starts, const intptr_t *counts,
                                    intptr_t stride, intptr_t width, const int32_t *pairs);

/// The end of a vertical-pass row: each of the `width * 4` sums rounded by (v + 8192) >> 14 and
/// clamped to 0...255, then every channel to at most its pixel's channel `alpha` (0-3).
void imago_lanczos_finish(const int32_t *acc, uint8_t *out, intptr_t width, intptr_t alpha);

/// `acc[i] += row[i] * weight` for `n` channels: one tap of the vertical pass.
void imago_lanczos_accumulate(int32_t *acc, const uint8_t *row, intptr_t n, int32_t weight);

/// The box pre-shrink's rows: adds one row of `width` premultiplied ARGB32 pixels into `sums`
/// (four 32-bit sums an output pixel), `kx` pixels to an output, the last output taking what is
/// left. At most 2^24 / 255 pixels may be added to one output between emits.
void imago_box_add(const uint8_t *row, uint32_t *sums, intptr_t width, intptr_t kx);

/// Writes the `(width + kx - 1) / kx` output pixels of the `rows` rows added: each sum divided by
/// its block's pixel count, rounded half up (`(s + n / 2) / n`), then zeroes the sums.
void imago_box_emit(uint32_t *sums, uint8_t *out, intptr_t width, intptr_t kx, intptr_t rows);

#endif
