#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include "imago_glue.h"

/* libtiff's tag accessors are variadic and its error handlers take a va_list: neither is
   callable from Swift, so they live here, with memory-backed I/O for reading and writing. */

struct imago_tiff {
    TIFF *tif;
    const uint8_t *data;      /* reading */
    uint8_t *out;             /* writing: grows */
    uint64_t size, capacity, offset;
    int writing;
    char message[256];
};

static int error_handler(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)module;
    imago_tiff *t = user;
    if (t && !t->message[0]) vsnprintf(t->message, sizeof t->message, fmt, ap);
    return 1;   /* handled: nothing printed */
}

static int warning_handler(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)user; (void)module; (void)fmt; (void)ap;
    return 1;
}

static tmsize_t read_proc(thandle_t h, void *buf, tmsize_t n) {
    imago_tiff *t = h;
    if (t->writing) {
        if (t->offset >= t->size) return 0;
        uint64_t left = t->size - t->offset;
        tmsize_t k = (uint64_t)n < left ? n : (tmsize_t)left;
        memcpy(buf, t->out + t->offset, (size_t)k);
        t->offset += (uint64_t)k;
        return k;
    }
    if (t->offset >= t->size || n <= 0) return 0;
    uint64_t left = t->size - t->offset;
    tmsize_t k = (uint64_t)n < left ? n : (tmsize_t)left;
    memcpy(buf, t->data + t->offset, (size_t)k);
    t->offset += (uint64_t)k;
    return k;
}

static tmsize_t write_proc(thandle_t h, void *buf, tmsize_t n) {
    imago_tiff *t = h;
    if (!t->writing || n < 0) return -1;
    uint64_t end = t->offset + (uint64_t)n;
    if (end > t->capacity) {
        uint64_t cap = t->capacity ? t->capacity : 65536;
        while (cap < end) cap *= 2;
        uint8_t *grown = realloc(t->out, (size_t)cap);
        if (!grown) return -1;
        if (cap > t->capacity) memset(grown + t->capacity, 0, (size_t)(cap - t->capacity));
        t->out = grown;
        t->capacity = cap;
    }
    memcpy(t->out + t->offset, buf, (size_t)n);
    t->offset = end;
    if (end > t->size) t->size = end;
    return n;
}

static toff_t seek_proc(thandle_t h, toff_t off, int whence) {
    imago_tiff *t = h;
    uint64_t base = whence == SEEK_CUR ? t->offset : whence == SEEK_END ? t->size : 0;
    uint64_t target = base + off;
    if (!t->writing && target > t->size) target = t->size;
    t->offset = target;
    return t->offset;
}

static int close_proc(thandle_t h) { (void)h; return 0; }
static toff_t size_proc(thandle_t h) { return ((imago_tiff *)h)->size; }
static int map_proc(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void unmap_proc(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

static imago_tiff *open_common(imago_tiff *t, const char *mode, uint64_t max_alloc) {
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts) { free(t); return NULL; }
    TIFFOpenOptionsSetErrorHandlerExtR(opts, error_handler, t);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, warning_handler, t);
    if (max_alloc) TIFFOpenOptionsSetMaxSingleMemAlloc(opts, (tmsize_t)max_alloc);
    t->tif = TIFFClientOpenExt("memory", mode, t, read_proc, write_proc, seek_proc, close_proc, size_proc,
                               map_proc, unmap_proc, opts);
    TIFFOpenOptionsFree(opts);
    return t;
}

imago_tiff *imago_tiff_open_memory(const uint8_t *data, size_t size, uint64_t max_alloc) {
    imago_tiff *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->data = data;
    t->size = size;
    return open_common(t, "rm", max_alloc);
}

imago_tiff *imago_tiff_create_memory(void) {
    imago_tiff *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->writing = 1;
    return open_common(t, "w", 0);
}

TIFF *imago_tiff_handle(imago_tiff *t) { return t->tif; }
const char *imago_tiff_message(imago_tiff *t) { return t->message; }

void imago_tiff_close(imago_tiff *t) {
    if (!t) return;
    if (t->tif) TIFFClose(t->tif);
    free(t->out);
    free(t);
}

const uint8_t *imago_tiff_written(imago_tiff *t, size_t *size) {
    if (t->tif) { TIFFClose(t->tif); t->tif = NULL; }
    *size = (size_t)t->size;
    return t->out;
}

int imago_tiff_get_u32(TIFF *tif, uint32_t tag, uint32_t *value) { return TIFFGetField(tif, tag, value); }
int imago_tiff_get_u16(TIFF *tif, uint32_t tag, uint16_t *value) { return TIFFGetField(tif, tag, value); }
int imago_tiff_get_u16_defaulted(TIFF *tif, uint32_t tag, uint16_t *value) { return TIFFGetFieldDefaulted(tif, tag, value); }

int imago_tiff_get_extra_samples(TIFF *tif, uint16_t *count, const uint16_t **values) {
    uint16_t *v = NULL;
    int ok = TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, count, &v);
    *values = v;
    return ok;
}

int imago_tiff_get_icc(TIFF *tif, uint32_t *length, const uint8_t **data) {
    void *p = NULL;
    int ok = TIFFGetField(tif, TIFFTAG_ICCPROFILE, length, &p);
    *data = p;
    return ok;
}

int imago_tiff_set_u32(TIFF *tif, uint32_t tag, uint32_t value) { return TIFFSetField(tif, tag, value); }
int imago_tiff_set_u16(TIFF *tif, uint32_t tag, uint16_t value) { return TIFFSetField(tif, tag, (int)value); }
int imago_tiff_set_extra_alpha(TIFF *tif, uint16_t kind) { uint16_t v = kind; return TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &v); }
int imago_tiff_set_icc(TIFF *tif, uint32_t length, const uint8_t *data) { return TIFFSetField(tif, TIFFTAG_ICCPROFILE, length, data); }

int imago_tiff_read_rgba(TIFF *tif, uint32_t width, uint32_t height, uint32_t *raster, int orientation) {
    return TIFFReadRGBAImageOriented(tif, width, height, raster, orientation, 1);
}
