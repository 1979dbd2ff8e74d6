// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include "imago_glue.h"

struct imago_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_source_mgr src;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    int max_scans;
    const uint8_t *base;
    size_t length;
    size_t position;      /* absolute offset of next_input_byte in the input */
    size_t skip_pending;  /* bytes skip_input_data still owes beyond what we had */
    int is_final;
    /* Pull mode (imago_jpeg_decoder_set_reader): the input is read a piece at a time into
       reader_buffer, which alone holds input bytes. */
    imago_jpeg_read_fn reader;
    void *reader_context;
    uint8_t *reader_buffer;
    size_t reader_capacity;
    int hit_end;
    int failed;
    int warnings;
    char message[JMSG_LENGTH_MAX];
    char warning[JMSG_LENGTH_MAX];
};

static const JOCTET fake_eoi[2] = { 0xFF, JPEG_EOI };

#define DECODER(cinfo) ((imago_jpeg_decoder *)((char *)(cinfo) - offsetof(imago_jpeg_decoder, cinfo)))

static void error_exit(j_common_ptr cinfo) {
    imago_jpeg_decoder *d = DECODER(cinfo);
    (*cinfo->err->format_message)(cinfo, d->message);
    longjmp(d->jump, 1);
}

static void emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; /* trace messages */
    imago_jpeg_decoder *d = DECODER(cinfo);
    if (d->warnings++ == 0) (*cinfo->err->format_message)(cinfo, d->warning);
    cinfo->err->num_warnings++;
}

/* Refuses files with more scans than allowed: each scan of a progressive JPEG costs a pass
   over the coefficients, so thousands of tiny scans are a known denial of service. */
static void progress_monitor(j_common_ptr cinfo) {
    imago_jpeg_decoder *d = DECODER(cinfo);
    if (d->max_scans > 0 && d->cinfo.input_scan_number > d->max_scans) {
        snprintf(d->message, sizeof d->message, "too many scans (more than %d): refused as hostile", d->max_scans);
        longjmp(d->jump, 1);
    }
}

void imago_jpeg_decoder_set_max_scans(imago_jpeg_decoder *d, int max_scans) { d->max_scans = max_scans; }

static void init_source(j_decompress_ptr cinfo) { (void)cinfo; }
static void term_source(j_decompress_ptr cinfo) { (void)cinfo; }

/* Pull mode: the next piece of input from the reader. Returns 0 at the end of the input. */
static size_t pull(imago_jpeg_decoder *d) {
    long n = d->reader(d->reader_context, d->reader_buffer, d->reader_capacity);
    if (n < 0) {
        snprintf(d->message, sizeof d->message, "the input could not be read");
        longjmp(d->jump, 1);
    }
    if ((size_t)n > d->reader_capacity) n = (long)d->reader_capacity;
    d->src.next_input_byte = d->reader_buffer;
    d->src.bytes_in_buffer = (size_t)n;
    return (size_t)n;
}

static boolean fill_input_buffer(j_decompress_ptr cinfo) {
    imago_jpeg_decoder *d = DECODER(cinfo);
    if (d->reader && !d->hit_end && pull(d) > 0) return TRUE;
    if (!d->reader && !d->is_final) return FALSE; /* suspend: more bytes may come */
    /* Final input ran out: record truncation and end the stream cleanly. */
    d->hit_end = 1;
    WARNMS(cinfo, JWRN_JPEG_EOF);
    d->src.next_input_byte = fake_eoi;
    d->src.bytes_in_buffer = 2;
    return TRUE;
}

static void skip_input_data(j_decompress_ptr cinfo, long count) {
    imago_jpeg_decoder *d = DECODER(cinfo);
    if (count <= 0) return;
    if (d->reader) {
        size_t left = (size_t)count;
        while (left > d->src.bytes_in_buffer) {
            left -= d->src.bytes_in_buffer;
            d->src.bytes_in_buffer = 0;
            (void)fill_input_buffer(cinfo); /* at the end: the fake EOI, which the skip then stops at */
            if (d->hit_end) return;
        }
        d->src.next_input_byte += left;
        d->src.bytes_in_buffer -= left;
        return;
    }
    if ((size_t)count <= d->src.bytes_in_buffer) {
        d->src.next_input_byte += count;
        d->src.bytes_in_buffer -= (size_t)count;
    } else {
        d->skip_pending += (size_t)count - d->src.bytes_in_buffer;
        d->src.next_input_byte += d->src.bytes_in_buffer;
        d->src.bytes_in_buffer = 0;
    }
}

/* Remembers how far the source got, so the next set_input can resume there. */
static void save_position(imago_jpeg_decoder *d) {
    const uint8_t *p = d->src.next_input_byte;
    if (d->base && p >= d->base && p <= d->base + d->length) d->position = (size_t)(p - d->base);
}

imago_jpeg_decoder *imago_jpeg_decoder_create(void) {
    imago_jpeg_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->cinfo.err = jpeg_std_error(&d->err);
    d->err.error_exit = error_exit;
    d->err.emit_message = emit_message;
    if (setjmp(d->jump)) { jpeg_destroy_decompress(&d->cinfo); free(d); return NULL; }
    jpeg_create_decompress(&d->cinfo);
    d->src.init_source = init_source;
    d->src.fill_input_buffer = fill_input_buffer;
    d->src.skip_input_data = skip_input_data;
    d->src.resync_to_restart = jpeg_resync_to_restart;
    d->src.term_source = term_source;
    d->cinfo.src = &d->src;
    d->progress.progress_monitor = progress_monitor;
    d->cinfo.progress = &d->progress;
    d->max_scans = 500;
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    return d;
}

void imago_jpeg_decoder_destroy(imago_jpeg_decoder *d) {
    if (!d) return;
    jpeg_destroy_decompress(&d->cinfo);
    free(d->reader_buffer);
    free(d);
}

int imago_jpeg_decoder_set_reader(imago_jpeg_decoder *d, imago_jpeg_read_fn reader, void *context, size_t capacity) {
    if (d->reader || d->base || capacity == 0) return IMAGO_ERROR;
    d->reader_buffer = malloc(capacity);
    if (!d->reader_buffer) return IMAGO_ERROR;
    d->reader = reader;
    d->reader_context = context;
    d->reader_capacity = capacity;
    d->is_final = 1;
    d->src.next_input_byte = d->reader_buffer;
    d->src.bytes_in_buffer = 0;
    return IMAGO_OK;
}

struct jpeg_decompress_struct *imago_jpeg_decoder_cinfo(imago_jpeg_decoder *d) { return &d->cinfo; }

void imago_jpeg_decoder_set_max_memory(imago_jpeg_decoder *d, long bytes) {
    d->cinfo.mem->max_memory_to_use = bytes;
}

void imago_jpeg_decoder_set_input(imago_jpeg_decoder *d, const uint8_t *data, size_t length, int is_final) {
    /* When the source is parked on the fake EOI, keep it there. */
    if (d->src.next_input_byte >= fake_eoi && d->src.next_input_byte <= fake_eoi + 2 && d->hit_end) {
        d->base = data; d->length = length; d->is_final = is_final;
        return;
    }
    size_t pos = d->position + d->skip_pending;
    if (pos > length) { d->skip_pending = pos - length; pos = length; } else d->skip_pending = 0;
    d->base = data;
    d->length = length;
    d->is_final = is_final;
    d->position = pos;
    d->src.next_input_byte = data + pos;
    d->src.bytes_in_buffer = length - pos;
}

#define GUARDED(d, body) do { \
    if ((d)->failed) return IMAGO_ERROR; \
    if (setjmp((d)->jump)) { (d)->failed = 1; save_position(d); return IMAGO_ERROR; } \
    body; \
    save_position(d); \
} while (0)

int imago_jpeg_read_header(imago_jpeg_decoder *d) {
    int r = 0;
    GUARDED(d, r = jpeg_read_header(&d->cinfo, TRUE));
    return r == JPEG_SUSPENDED ? IMAGO_SUSPENDED : IMAGO_OK;
}

int imago_jpeg_start_decompress(imago_jpeg_decoder *d) {
    boolean r = FALSE;
    GUARDED(d, r = jpeg_start_decompress(&d->cinfo));
    return r ? IMAGO_OK : IMAGO_SUSPENDED;
}

int imago_jpeg_read_rows(imago_jpeg_decoder *d, uint8_t *dst, size_t stride, uint32_t *rows_read) {
    *rows_read = 0;
    uint32_t total = 0;
    GUARDED(d, {
        while (d->cinfo.output_scanline < d->cinfo.output_height) {
            JSAMPROW rows[4];
            JDIMENSION want = d->cinfo.output_height - d->cinfo.output_scanline;
            if (want > 4) want = 4;
            for (JDIMENSION i = 0; i < want; i++) rows[i] = dst + (size_t)(d->cinfo.output_scanline + i) * stride;
            JDIMENSION got = jpeg_read_scanlines(&d->cinfo, rows, want);
            if (got == 0) break; /* suspended */
            total += got;
            *rows_read = total;
        }
    });
    *rows_read = total;
    return d->cinfo.output_scanline < d->cinfo.output_height ? IMAGO_SUSPENDED : IMAGO_OK;
}

int imago_jpeg_read_some_rows(imago_jpeg_decoder *d, uint8_t *dst, size_t stride, uint32_t max_rows, uint32_t *rows_read) {
    *rows_read = 0;
    uint32_t total = 0;
    GUARDED(d, {
        while (total < max_rows && d->cinfo.output_scanline < d->cinfo.output_height) {
            JSAMPROW rows[4];
            JDIMENSION want = max_rows - total;
            if (want > 4) want = 4;
            for (JDIMENSION i = 0; i < want; i++) rows[i] = dst + (size_t)(total + i) * stride;
            JDIMENSION got = jpeg_read_scanlines(&d->cinfo, rows, want);
            if (got == 0) break; /* suspended */
            total += got;
            *rows_read = total;
        }
    });
    *rows_read = total;
    return d->cinfo.output_scanline < d->cinfo.output_height && total < max_rows ? IMAGO_SUSPENDED : IMAGO_OK;
}

int imago_jpeg_finish_decompress(imago_jpeg_decoder *d) {
    boolean r = FALSE;
    GUARDED(d, r = jpeg_finish_decompress(&d->cinfo));
    return r ? IMAGO_OK : IMAGO_SUSPENDED;
}

int imago_jpeg_consume_input(imago_jpeg_decoder *d, int *result) {
    int r = JPEG_SUSPENDED;
    GUARDED(d, r = jpeg_consume_input(&d->cinfo));
    *result = r;
    return IMAGO_OK;
}

int imago_jpeg_start_output(imago_jpeg_decoder *d, int scan_number) {
    boolean r = FALSE;
    GUARDED(d, r = jpeg_start_output(&d->cinfo, scan_number));
    return r ? IMAGO_OK : IMAGO_SUSPENDED;
}

int imago_jpeg_finish_output(imago_jpeg_decoder *d) {
    boolean r = FALSE;
    GUARDED(d, r = jpeg_finish_output(&d->cinfo));
    return r ? IMAGO_OK : IMAGO_SUSPENDED;
}

int imago_jpeg_read_icc_profile(imago_jpeg_decoder *d, uint8_t **profile, unsigned int *length) {
    *profile = NULL;
    *length = 0;
    JOCTET *buf = NULL;
    unsigned int len = 0;
    GUARDED(d, { if (!jpeg_read_icc_profile(&d->cinfo, &buf, &len)) { buf = NULL; len = 0; } });
    *profile = buf;
    *length = len;
    return IMAGO_OK;
}

int imago_jpeg_marker(imago_jpeg_decoder *d, int index, int *code, const uint8_t **data, unsigned int *length) {
    jpeg_saved_marker_ptr m = d->cinfo.marker_list;
    for (int i = 0; m && i < index; i++) m = m->next;
    if (!m) return 0;
    *code = m->marker;
    *data = m->data;
    *length = m->data_length;
    return 1;
}

const char *imago_jpeg_decoder_message(imago_jpeg_decoder *d) { return d->message; }
const char *imago_jpeg_decoder_warning(imago_jpeg_decoder *d) { return d->warning; }
int imago_jpeg_decoder_warning_count(imago_jpeg_decoder *d) { return d->warnings; }
int imago_jpeg_decoder_hit_end(imago_jpeg_decoder *d) { return d->hit_end; }

/* ---------------------------------------------------------------- encoding */

struct encoder_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void encoder_error_exit(j_common_ptr cinfo) {
    struct encoder_error *e = (struct encoder_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jump, 1);
}

static void encoder_emit_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

/* A growing memory destination Imago owns, so the buffer can be freed whatever state an error
   leaves libjpeg in (jpeg_mem_dest hands back a stale pointer if it fails after growing). */
struct growing_destination {
    struct jpeg_destination_mgr pub;
    unsigned char *buffer;
    size_t capacity, used;
};

static void growing_init(j_compress_ptr cinfo) {
    struct growing_destination *d = (struct growing_destination *)cinfo->dest;
    if (!d->buffer) {
        d->capacity = 1 << 16;
        d->buffer = malloc(d->capacity);
        if (!d->buffer) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    }
    d->pub.next_output_byte = d->buffer;
    d->pub.free_in_buffer = d->capacity;
}

static boolean growing_empty(j_compress_ptr cinfo) {
    struct growing_destination *d = (struct growing_destination *)cinfo->dest;
    size_t used = d->capacity;   /* libjpeg calls this with the buffer full */
    if (d->capacity > ((size_t)-1) / 2) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
    unsigned char *grown = realloc(d->buffer, d->capacity * 2);
    if (!grown) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 2);
    d->buffer = grown;
    d->capacity *= 2;
    d->pub.next_output_byte = d->buffer + used;
    d->pub.free_in_buffer = d->capacity - used;
    return TRUE;
}

static void growing_term(j_compress_ptr cinfo) {
    struct growing_destination *d = (struct growing_destination *)cinfo->dest;
    d->used = d->capacity - d->pub.free_in_buffer;
}

struct imago_jpeg_row_encoder {
    struct jpeg_compress_struct cinfo;
    struct encoder_error err;
    struct growing_destination dest;
    int created, failed;
};

#define ENCODER_GUARDED(e, body) do { \
    if ((e)->failed) return IMAGO_ERROR; \
    if (setjmp((e)->err.jump)) { (e)->failed = 1; return IMAGO_ERROR; } \
    body; \
} while (0)

imago_jpeg_row_encoder *imago_jpeg_row_encoder_create(void) {
    imago_jpeg_row_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->cinfo.err = jpeg_std_error(&e->err.pub);
    e->err.pub.error_exit = encoder_error_exit;
    e->err.pub.emit_message = encoder_emit_message;
    if (setjmp(e->err.jump)) { free(e); return NULL; }
    jpeg_create_compress(&e->cinfo);
    e->created = 1;
    return e;
}

void imago_jpeg_row_encoder_destroy(imago_jpeg_row_encoder *e) {
    if (!e) return;
    if (e->created) jpeg_destroy_compress(&e->cinfo);
    free(e->dest.buffer);
    free(e);
}

const char *imago_jpeg_row_encoder_message(imago_jpeg_row_encoder *e) { return e->err.message; }

/* N. Robidoux's quantisation table (ImageMagick's quantization-table.xml; mozjpeg's default, its
   index 3), for luma and chroma alike, in natural order. At equal SSIMULACRA2 score it makes
   photos about 6% smaller than the standard's tables (scripts/bench-formats --efficient). */
static const unsigned int robidoux_table[DCTSIZE2] = {
    16, 16, 16, 18, 25, 37, 56, 85,
    16, 17, 20, 27, 34, 40, 53, 75,
    16, 20, 24, 31, 43, 62, 91, 135,
    18, 27, 31, 40, 53, 74, 106, 156,
    25, 34, 43, 53, 69, 94, 131, 189,
    37, 40, 62, 74, 94, 124, 169, 238,
    56, 53, 91, 106, 131, 169, 226, 311,
    85, 75, 135, 156, 189, 238, 311, 418,
};

int imago_jpeg_row_encoder_start(imago_jpeg_row_encoder *e, const imago_jpeg_encode_params *p) {
    ENCODER_GUARDED(e, {
        e->dest.pub.init_destination = growing_init;
        e->dest.pub.empty_output_buffer = growing_empty;
        e->dest.pub.term_destination = growing_term;
        e->cinfo.dest = &e->dest.pub;
        e->cinfo.image_width = p->width;
        e->cinfo.image_height = p->height;
        e->cinfo.input_components = p->components;
        e->cinfo.in_color_space = (J_COLOR_SPACE)p->in_color_space;
        jpeg_set_defaults(&e->cinfo);
        jpeg_set_quality(&e->cinfo, p->quality, TRUE);
        if (p->quant_table == 1) {
            /* Scaled by the quality as libjpeg scales the standard's; clamped to baseline's 255. */
            int scale = jpeg_quality_scaling(p->quality);
            jpeg_add_quant_table(&e->cinfo, 0, robidoux_table, scale, TRUE);
            jpeg_add_quant_table(&e->cinfo, 1, robidoux_table, scale, TRUE);
        }
        if (p->optimize_coding) e->cinfo.optimize_coding = TRUE;
        if (e->cinfo.jpeg_color_space == JCS_YCbCr) {
            int h = p->chroma_subsample ? 2 : 1;
            e->cinfo.comp_info[0].h_samp_factor = h;
            e->cinfo.comp_info[0].v_samp_factor = h;
        }
        if (p->progressive) jpeg_simple_progression(&e->cinfo);
        jpeg_start_compress(&e->cinfo, TRUE);
        if (p->exif && p->exif_length > 0 && p->exif_length <= 65533 - 6) {
            JOCTET *app1 = malloc(p->exif_length + 6);
            if (app1) {
                memcpy(app1, "Exif\0\0", 6);
                memcpy(app1 + 6, p->exif, p->exif_length);
                jpeg_write_marker(&e->cinfo, JPEG_APP0 + 1, app1, p->exif_length + 6);
                free(app1);
            }
        }
        if (p->icc && p->icc_length > 0) jpeg_write_icc_profile(&e->cinfo, p->icc, p->icc_length);
    });
    return IMAGO_OK;
}

int imago_jpeg_row_encoder_write(imago_jpeg_row_encoder *e, const uint8_t *rows, size_t stride, uint32_t count) {
    ENCODER_GUARDED(e, {
        for (uint32_t i = 0; i < count && e->cinfo.next_scanline < e->cinfo.image_height; i++) {
            JSAMPROW row = (JSAMPROW)(rows + (size_t)i * stride);
            jpeg_write_scanlines(&e->cinfo, &row, 1);
        }
    });
    return IMAGO_OK;
}

int imago_jpeg_row_encoder_finish(imago_jpeg_row_encoder *e, uint8_t **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    if (!e->failed && e->cinfo.next_scanline < e->cinfo.image_height) {
        snprintf(e->err.message, sizeof e->err.message, "%u of %u rows were written",
                 (unsigned)e->cinfo.next_scanline, (unsigned)e->cinfo.image_height);
        e->failed = 1;
        return IMAGO_ERROR;
    }
    ENCODER_GUARDED(e, jpeg_finish_compress(&e->cinfo));
    *out = e->dest.buffer;
    *out_length = e->dest.used;
    e->dest.buffer = NULL;
    return IMAGO_OK;
}

int imago_jpeg_encode(const imago_jpeg_encode_params *p, uint8_t **out, size_t *out_length,
                      char *message, size_t message_capacity) {
    *out = NULL;
    *out_length = 0;
    imago_jpeg_row_encoder *e = imago_jpeg_row_encoder_create();
    if (!e) {
        if (message && message_capacity) snprintf(message, message_capacity, "out of memory");
        return IMAGO_ERROR;
    }
    int r = imago_jpeg_row_encoder_start(e, p);
    if (r == IMAGO_OK) r = imago_jpeg_row_encoder_write(e, p->pixels, p->stride, p->height);
    if (r == IMAGO_OK) r = imago_jpeg_row_encoder_finish(e, out, out_length);
    if (r != IMAGO_OK && message && message_capacity) {
        strncpy(message, e->err.message, message_capacity - 1);
        message[message_capacity - 1] = 0;
    }
    imago_jpeg_row_encoder_destroy(e);
    return r;
}

void imago_free(void *p) { free(p); }
