// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include "imago_glue.h"

struct imago_png_decoder {
    png_structp png;
    png_infop info;
    jmp_buf jump;
    uint8_t *out;
    size_t stride;
    int bgra;
    int apply_gamma;
    int premultiply_rows;
    int failed;
    int header_ready;
    int finished;
    int passes;
    int pass;
    uint32_t rows_in_pass;
    uint32_t highest_row;
    imago_png_row_sink sink;
    void *sink_context;
    char message[256];
};

static void png_error_fn(png_structp png, png_const_charp msg) {
    imago_png_decoder *d = png_get_error_ptr(png);
    strncpy(d->message, msg ? msg : "unknown libpng error", sizeof d->message - 1);
    d->message[sizeof d->message - 1] = 0;
    longjmp(d->jump, 1);
}

static void png_warning_fn(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

static void info_callback(png_structp png, png_infop info) {
    imago_png_decoder *d = png_get_progressive_ptr(png);
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;

    if (d->apply_gamma && !png_get_valid(png, info, PNG_INFO_sRGB) && !png_get_valid(png, info, PNG_INFO_iCCP)) {
        double gamma = 0;
        if (png_get_gAMA(png, info, &gamma) && gamma > 0) png_set_gamma(png, PNG_DEFAULT_sRGB, gamma);
    }
    png_set_expand(png);                         /* palette -> RGB, gray < 8 bits -> 8, tRNS -> alpha */
    if (bit_depth == 16) png_set_scale_16(png);  /* rounded 16 -> 8 */
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !has_trns) png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
    if (d->bgra) png_set_bgr(png);
    d->passes = png_set_interlace_handling(png);
    /* Rows of an interlaced image are completed over several passes: premultiplying early
       would premultiply earlier pixels twice, so those are premultiplied afterwards. */
    if (d->passes > 1) d->premultiply_rows = 0;
    /* An ICC profile to apply (colour management on) must see straight pixels: it is converted
       and premultiplied after, by the caller. */
    if (d->apply_gamma && png_get_valid(png, info, PNG_INFO_iCCP)) d->premultiply_rows = 0;
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)png_get_image_width(png, info) * 4)
        png_error(png, "unexpected row size after transformations");
    d->header_ready = 1;
}

/* Premultiplies one row of native-endian ARGB32 words with exact rounding (round(c * a / 255)),
   while it is hot in cache. Branch-free so the compiler vectorizes it; a = 255 leaves c unchanged. */
static void premultiply_row(uint8_t *row, png_uint_32 width) {
    uint32_t *px = (uint32_t *)(void *)row;   /* rows are 4-byte aligned: stride = width * 4 */
    for (png_uint_32 x = 0; x < width; x++) {
        uint32_t p = px[x];
        uint32_t a = p >> 24;
        uint32_t rb = (p & 0x00FF00FFu) * a + 0x00800080u;
        rb = ((rb + ((rb >> 8) & 0x00FF00FFu)) >> 8) & 0x00FF00FFu;
        uint32_t g = ((p >> 8) & 0xFFu) * a + 0x80u;
        g = ((g + (g >> 8)) >> 8) & 0xFFu;
        px[x] = rb | (g << 8) | (a << 24);
    }
}

static void row_callback(png_structp png, png_bytep new_row, png_uint_32 row, int pass) {
    imago_png_decoder *d = png_get_progressive_ptr(png);
    if (pass != d->pass) { d->pass = pass; d->rows_in_pass = 0; }
    if (!new_row || !d->out) return;
    if (row >= png_get_image_height(png, d->info)) return;
    png_progressive_combine_row(png, d->out + (size_t)row * d->stride, new_row);
    if (d->premultiply_rows) premultiply_row(d->out + (size_t)row * d->stride, png_get_image_width(png, d->info));
    d->rows_in_pass = row + 1;
    if (row + 1 > d->highest_row) d->highest_row = row + 1;
    /* The sink returns before libpng runs again, so a later longjmp never crosses its frames. */
    if (d->sink && d->sink(d->sink_context, d->out + (size_t)row * d->stride, row) != 0)
        png_error(png, "decoding was stopped by the row consumer");
}

static void end_callback(png_structp png, png_infop info) {
    (void)info;
    imago_png_decoder *d = png_get_progressive_ptr(png);
    d->finished = 1;
}

imago_png_decoder *imago_png_decoder_create(uint8_t *out, size_t stride, int bgra, int apply_gamma,
                                            uint32_t max_width, uint32_t max_height) {
    imago_png_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->out = out;
    d->stride = stride;
    d->bgra = bgra;
    d->apply_gamma = apply_gamma;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, png_error_fn, png_warning_fn);
    if (!d->png) { free(d); return NULL; }
    d->info = png_create_info_struct(d->png);
    if (!d->info) { png_destroy_read_struct(&d->png, NULL, NULL); free(d); return NULL; }
    png_set_user_limits(d->png, max_width, max_height);
    png_set_chunk_malloc_max(d->png, 64u << 20);
#ifdef PNG_SKIP_sRGB_CHECK_PROFILE
    /* Keep an iCCP that libpng lists as a known-incorrect sRGB profile, as browsers do, rather
       than dropping it: the file's own profile is what it was written with. */
    png_set_option(d->png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
#endif
    png_set_progressive_read_fn(d->png, d, info_callback, row_callback, end_callback);
    return d;
}

void imago_png_decoder_destroy(imago_png_decoder *d) {
    if (!d) return;
    png_destroy_read_struct(&d->png, &d->info, NULL);
    free(d);
}

int imago_png_feed(imago_png_decoder *d, const uint8_t *data, size_t length) {
    if (d->failed) return IMAGO_ERROR;
    if (setjmp(d->jump)) { d->failed = 1; return IMAGO_ERROR; }
    if (length > 0 && !d->finished) png_process_data(d->png, d->info, (png_bytep)data, length);
    return d->finished ? IMAGO_OK : IMAGO_SUSPENDED;
}

int imago_png_header_ready(imago_png_decoder *d) { return d->header_ready; }
int imago_png_finished(imago_png_decoder *d) { return d->finished; }

int imago_png_get_header(imago_png_decoder *d, imago_png_header *h) {
    memset(h, 0, sizeof *h);
    if (!d->header_ready) return IMAGO_SUSPENDED;
    /* May be called from inside a row callback, while imago_png_feed's jump target is live:
       keep that target and restore it before returning. */
    jmp_buf outer;
    memcpy(&outer, &d->jump, sizeof outer);
    if (setjmp(d->jump)) { memcpy(&d->jump, &outer, sizeof outer); return IMAGO_ERROR; }
    png_structp png = d->png;
    png_infop info = d->info;
    png_uint_32 w = 0, hgt = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(png, info, &w, &hgt, &depth, &color, &interlace, NULL, NULL);
    h->width = w; h->height = hgt; h->bit_depth = depth; h->color_type = color; h->interlace = interlace;
    h->passes = d->passes;
    h->has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    h->has_srgb = png_get_valid(png, info, PNG_INFO_sRGB) != 0;
    double gamma = 0;
    if (png_get_gAMA(png, info, &gamma)) { h->has_gamma = 1; h->gamma = gamma; }
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_length = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_length) && profile) {
        h->icc = profile; h->icc_length = profile_length;
    }
#ifdef PNG_eXIf_SUPPORTED
    png_bytep exif = NULL;
    png_uint_32 exif_length = 0;
    if (png_get_eXIf_1(png, info, &exif_length, &exif) && exif) { h->exif = exif; h->exif_length = exif_length; }
#endif
#ifdef PNG_iTXt_SUPPORTED
    png_textp texts = NULL;
    int text_count = png_get_text(png, info, &texts, NULL);
    for (int i = 0; i < text_count && texts; i++) {
        /* iTXt only (libpng has already inflated a compressed one); tEXt cannot hold XMP. */
        if (texts[i].compression >= PNG_ITXT_COMPRESSION_NONE && texts[i].key && texts[i].text &&
            strcmp(texts[i].key, "XML:com.adobe.xmp") == 0) {
            h->xmp = (const uint8_t *)texts[i].text; h->xmp_length = texts[i].itxt_length;
            break;
        }
    }
#endif
    memcpy(&d->jump, &outer, sizeof outer);
    return IMAGO_OK;
}

void imago_png_progress(imago_png_decoder *d, int *pass, uint32_t *rows_in_pass, uint32_t *highest_row) {
    *pass = d->pass;
    *rows_in_pass = d->rows_in_pass;
    *highest_row = d->highest_row;
}

const char *imago_png_decoder_message(imago_png_decoder *d) { return d->message; }

void imago_png_decoder_premultiply_rows(imago_png_decoder *d, int enabled) { d->premultiply_rows = enabled; }
int imago_png_decoder_premultiplied_rows(imago_png_decoder *d) { return d->premultiply_rows; }

void imago_png_decoder_set_row_sink(imago_png_decoder *d, imago_png_row_sink sink, void *context) {
    d->sink = sink;
    d->sink_context = context;
}

/* ---------------------------------------------------------------- encoding */

struct png_writer {
    jmp_buf jump;
    uint8_t *data;
    size_t length, capacity;
    int out_of_memory;
    char message[256];
};

static void writer_error(png_structp png, png_const_charp msg) {
    struct png_writer *w = png_get_error_ptr(png);
    strncpy(w->message, msg ? msg : "unknown libpng error", sizeof w->message - 1);
    w->message[sizeof w->message - 1] = 0;
    longjmp(w->jump, 1);
}

static void writer_write(png_structp png, png_bytep data, size_t length) {
    struct png_writer *w = png_get_io_ptr(png);
    if (w->length + length > w->capacity) {
        size_t cap = w->capacity ? w->capacity : 65536;
        while (cap < w->length + length) cap *= 2;
        uint8_t *grown = realloc(w->data, cap);
        if (!grown) png_error(png, "out of memory while writing PNG");
        w->data = grown;
        w->capacity = cap;
    }
    memcpy(w->data + w->length, data, length);
    w->length += length;
}

static void writer_flush(png_structp png) { (void)png; }

/* The header, profile and EXIF, written ahead of the rows; libpng errors longjmp out. */
static void writer_begin(png_structp png, png_infop info, struct png_writer *w, const imago_png_encode_params *p) {
    png_set_write_fn(png, w, writer_write, writer_flush);
#ifdef PNG_SKIP_sRGB_CHECK_PROFILE
    /* Keep the caller's profile byte for byte, even one libpng lists as a known-incorrect sRGB
       profile (common in camera JPEGs): writing it is what was asked for. */
    png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
#endif
    png_set_compression_level(png, p->compression_level);
    png_set_IHDR(png, info, p->width, p->height, 8, p->color_type,
                 p->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (p->icc && p->icc_length > 0) png_set_iCCP(png, info, "icc", PNG_COMPRESSION_TYPE_BASE, p->icc, p->icc_length);
#ifdef PNG_eXIf_SUPPORTED
    if (p->exif && p->exif_length > 0) png_set_eXIf_1(png, info, p->exif_length, (png_bytep)p->exif);
#endif
    png_write_info(png, info);
}

int imago_png_encode(const imago_png_encode_params *p, uint8_t **out, size_t *out_length,
                     char *message, size_t message_capacity) {
    struct png_writer w;
    memset(&w, 0, sizeof w);
    *out = NULL;
    *out_length = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w, writer_error, png_warning_fn);
    if (!png) return IMAGO_ERROR;
    png_infop info = png_create_info_struct(png);
    if (!info) { png_destroy_write_struct(&png, NULL); return IMAGO_ERROR; }
    if (setjmp(w.jump)) {
        if (message && message_capacity) { strncpy(message, w.message, message_capacity - 1); message[message_capacity - 1] = 0; }
        png_destroy_write_struct(&png, &info);
        free(w.data);
        return IMAGO_ERROR;
    }
    writer_begin(png, info, &w, p);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++)
        for (uint32_t y = 0; y < p->height; y++)
            png_write_row(png, (png_const_bytep)(p->pixels + (size_t)y * p->stride));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = w.data;
    *out_length = w.length;
    return IMAGO_OK;
}

struct imago_png_row_encoder {
    struct png_writer w;
    png_structp png;
    png_infop info;
    uint32_t height, written;
    int failed;
};

#define PNG_ENCODER_GUARDED(e, body) do { \
    if ((e)->failed) return IMAGO_ERROR; \
    if (setjmp((e)->w.jump)) { (e)->failed = 1; return IMAGO_ERROR; } \
    body; \
} while (0)

imago_png_row_encoder *imago_png_row_encoder_create(void) {
    imago_png_row_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &e->w, writer_error, png_warning_fn);
    if (e->png) e->info = png_create_info_struct(e->png);
    if (!e->png || !e->info) { imago_png_row_encoder_destroy(e); return NULL; }
    return e;
}

void imago_png_row_encoder_destroy(imago_png_row_encoder *e) {
    if (!e) return;
    if (e->png) png_destroy_write_struct(&e->png, e->info ? &e->info : NULL);
    free(e->w.data);
    free(e);
}

const char *imago_png_row_encoder_message(imago_png_row_encoder *e) { return e->w.message; }

int imago_png_row_encoder_start(imago_png_row_encoder *e, const imago_png_encode_params *p) {
    if (p->interlace) {
        snprintf(e->w.message, sizeof e->w.message, "interlaced rows cannot be written one at a time");
        e->failed = 1;
        return IMAGO_ERROR;
    }
    e->height = p->height;
    PNG_ENCODER_GUARDED(e, writer_begin(e->png, e->info, &e->w, p));
    return IMAGO_OK;
}

int imago_png_row_encoder_write(imago_png_row_encoder *e, const uint8_t *rows, size_t stride, uint32_t count) {
    PNG_ENCODER_GUARDED(e, {
        for (uint32_t i = 0; i < count && e->written < e->height; i++, e->written++)
            png_write_row(e->png, (png_const_bytep)(rows + (size_t)i * stride));
    });
    return IMAGO_OK;
}

int imago_png_row_encoder_finish(imago_png_row_encoder *e, uint8_t **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    if (!e->failed && e->written < e->height) {
        snprintf(e->w.message, sizeof e->w.message, "%u of %u rows were written", (unsigned)e->written, (unsigned)e->height);
        e->failed = 1;
    }
    PNG_ENCODER_GUARDED(e, png_write_end(e->png, e->info));
    *out = e->w.data;
    *out_length = e->w.length;
    e->w.data = NULL;
    return IMAGO_OK;
}
