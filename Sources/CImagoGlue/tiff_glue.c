// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include "imago_glue.h"

/* libtiff's tag accessors are variadic and its error handlers take a va_list: neither is
   callable from Swift, so they live here, with memory-backed I/O for reading and writing. */

#include <dlfcn.h>
#include <pthread.h>

/* libtiff and its codecs (zstd, lzma, Lerc, jbig, libdeflate) are loaded on first use, not at
   start-up, where they would cost every process about a megabyte: every libtiff call below goes
   through a pointer resolved once from libtiff.so.6. Without libtiff, opening fails cleanly. */
static struct {
    TIFF *(*client_open_ext)(const char *, const char *, thandle_t, TIFFReadWriteProc, TIFFReadWriteProc, TIFFSeekProc,
                             TIFFCloseProc, TIFFSizeProc, TIFFMapFileProc, TIFFUnmapFileProc, TIFFOpenOptions *);
    void (*close)(TIFF *);
    int (*get_field)(TIFF *, uint32_t, ...);
    int (*get_field_defaulted)(TIFF *, uint32_t, ...);
    int (*set_field)(TIFF *, uint32_t, ...);
    TIFFOpenOptions *(*options_alloc)(void);
    void (*options_free)(TIFFOpenOptions *);
    void (*options_set_error)(TIFFOpenOptions *, TIFFErrorHandlerExtR, void *);
    void (*options_set_warning)(TIFFOpenOptions *, TIFFErrorHandlerExtR, void *);
    void (*options_set_max_alloc)(TIFFOpenOptions *, tmsize_t);
    int (*read_rgba_oriented)(TIFF *, uint32_t, uint32_t, uint32_t *, int, int);
    tdir_t (*number_of_directories)(TIFF *);
    int (*set_directory)(TIFF *, tdir_t);
    int (*write_scanline)(TIFF *, void *, uint32_t, uint16_t);
    int (*write_directory)(TIFF *);
    int loaded;
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_load(void) {
    void *h = dlopen("libtiff.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
#define SYM(field, name) *(void **)(&lib.field) = dlsym(h, name); if (!lib.field) return;
    SYM(client_open_ext, "TIFFClientOpenExt")
    SYM(close, "TIFFClose")
    SYM(get_field, "TIFFGetField")
    SYM(get_field_defaulted, "TIFFGetFieldDefaulted")
    SYM(set_field, "TIFFSetField")
    SYM(options_alloc, "TIFFOpenOptionsAlloc")
    SYM(options_free, "TIFFOpenOptionsFree")
    SYM(options_set_error, "TIFFOpenOptionsSetErrorHandlerExtR")
    SYM(options_set_warning, "TIFFOpenOptionsSetWarningHandlerExtR")
    SYM(options_set_max_alloc, "TIFFOpenOptionsSetMaxSingleMemAlloc")
    SYM(read_rgba_oriented, "TIFFReadRGBAImageOriented")
    SYM(number_of_directories, "TIFFNumberOfDirectories")
    SYM(set_directory, "TIFFSetDirectory")
    SYM(write_scanline, "TIFFWriteScanline")
    SYM(write_directory, "TIFFWriteDirectory")
#undef SYM
    lib.loaded = 1;
}

static int lib_ready(void) { pthread_once(&lib_once, lib_load); return lib.loaded; }

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
    if (!lib_ready()) {
        strncpy(t->message, "libtiff (libtiff6) is not installed", sizeof t->message - 1);
        return t;
    }
    TIFFOpenOptions *opts = lib.options_alloc();
    if (!opts) { free(t); return NULL; }
    lib.options_set_error(opts, error_handler, t);
    lib.options_set_warning(opts, warning_handler, t);
    if (max_alloc) lib.options_set_max_alloc(opts, (tmsize_t)max_alloc);
    t->tif = lib.client_open_ext("memory", mode, t, read_proc, write_proc, seek_proc, close_proc, size_proc,
                                 map_proc, unmap_proc, opts);
    lib.options_free(opts);
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
    if (t->tif) lib.close(t->tif);
    free(t->out);
    free(t);
}

const uint8_t *imago_tiff_written(imago_tiff *t, size_t *size) {
    if (t->tif) { lib.close(t->tif); t->tif = NULL; }
    *size = (size_t)t->size;
    return t->out;
}

int imago_tiff_get_u32(TIFF *tif, uint32_t tag, uint32_t *value) { return lib.get_field(tif, tag, value); }
int imago_tiff_get_u16(TIFF *tif, uint32_t tag, uint16_t *value) { return lib.get_field(tif, tag, value); }
int imago_tiff_get_u16_defaulted(TIFF *tif, uint32_t tag, uint16_t *value) { return lib.get_field_defaulted(tif, tag, value); }

int imago_tiff_get_extra_samples(TIFF *tif, uint16_t *count, const uint16_t **values) {
    uint16_t *v = NULL;
    int ok = lib.get_field_defaulted(tif, TIFFTAG_EXTRASAMPLES, count, &v);
    *values = v;
    return ok;
}

int imago_tiff_get_icc(TIFF *tif, uint32_t *length, const uint8_t **data) {
    void *p = NULL;
    int ok = lib.get_field(tif, TIFFTAG_ICCPROFILE, length, &p);
    *data = p;
    return ok;
}

int imago_tiff_set_u32(TIFF *tif, uint32_t tag, uint32_t value) { return lib.set_field(tif, tag, value); }
int imago_tiff_set_u16(TIFF *tif, uint32_t tag, uint16_t value) { return lib.set_field(tif, tag, (int)value); }
int imago_tiff_set_extra_alpha(TIFF *tif, uint16_t kind) { uint16_t v = kind; return lib.set_field(tif, TIFFTAG_EXTRASAMPLES, 1, &v); }
int imago_tiff_set_icc(TIFF *tif, uint32_t length, const uint8_t *data) { return lib.set_field(tif, TIFFTAG_ICCPROFILE, length, data); }

int imago_tiff_read_rgba(TIFF *tif, uint32_t width, uint32_t height, uint32_t *raster, int orientation) {
    return lib.read_rgba_oriented(tif, width, height, raster, orientation, 1);
}

int imago_tiff_directory_count(TIFF *tif) { return (int)lib.number_of_directories(tif); }
int imago_tiff_set_directory(TIFF *tif, int index) { return lib.set_directory(tif, (tdir_t)index); }
int imago_tiff_write_scanline(TIFF *tif, void *row, uint32_t y) { return lib.write_scanline(tif, row, y, 0); }
int imago_tiff_write_directory(TIFF *tif) { return lib.write_directory(tif); }
