// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_PDF_SPLASH_H
#define IMAGO_PDF_SPLASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libImagoPDF: poppler's own renderer (Splash, what pdftoppm draws with) behind a C interface,
   a shared library of its own so that processes that never meet a PDF never map poppler
   (CImagoGlue's vector_glue.c opens it with dlopen on first use). poppler's core is C++ only.
   Pages are laid out as pdftoppm lays them out: the MediaBox, `/Rotate` applied, paper white. */

/// The interface's version; a library of another version is not used.
#define IMAGO_PDF_SPLASH_VERSION 3

/// The pixel layouts a page is drawn into (opaque, so alpha is 255 and premultiplying changes
/// nothing): cairo's ARGB32 (native-endian words: B, G, R, A in memory on a little-endian
/// machine), R, G, B, A bytes, or R, G, B bytes.
enum { IMAGO_PDF_ARGB32 = 0, IMAGO_PDF_RGBA8 = 1, IMAGO_PDF_RGB8 = 2 };

typedef struct imago_pdf_splash imago_pdf_splash;

int imago_pdf_splash_version(void);

/// Opens a document from `length` bytes (copied). NULL with a message in `error` when poppler
/// cannot read it; `*needs_password` is set when it is encrypted with a password other than the
/// empty one.
imago_pdf_splash *imago_pdf_splash_open(const uint8_t *data, size_t length, int *needs_password, char *error, size_t error_length);

int imago_pdf_splash_page_count(imago_pdf_splash *pdf);

/// Page `index`'s (from 0) MediaBox in points, width and height swapped for a page turned a
/// quarter; 0 when the page cannot be read.
int imago_pdf_splash_page_size(imago_pdf_splash *pdf, int index, double *width, double *height);

/// Draws page `index` at `scale_x` × `scale_y` pixels a point into `width` × `height` pixels of
/// `layout`, `stride` bytes a row, in `bands` horizontal bands (1: the page in one piece) drawn by
/// up to `threads` threads at once, the caller's included. The pixels depend on the bands, never
/// on the threads. Returns 0, 1 (failed, with a message in `error`) or 2 (stopped after
/// `max_seconds` of wall time; infinite for none).
int imago_pdf_splash_render(imago_pdf_splash *pdf, int index, uint8_t *pixels, int width, int height, int stride, int layout,
                            double scale_x, double scale_y, double max_seconds, int bands, int threads, char *error,
                            size_t error_length);

void imago_pdf_splash_close(imago_pdf_splash *pdf);

#ifdef __cplusplus
}
#endif

#endif
