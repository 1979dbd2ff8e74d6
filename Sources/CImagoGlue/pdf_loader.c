// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "imago_glue.h"

/* PDF (ImagoCoders' PDFCoder): Imago's own libImagoPDF, the C face of poppler's core and its Splash
   renderer (what pdftoppm draws with), opened with dlopen the first time a PDF is met, so that
   poppler is mapped only by processes that read PDF. Its functions take and return what the
   declarations in imago_glue.h say; libImagoPDF's own header is Sources/CImagoPDF/include. */

/* The version of libImagoPDF's interface this file speaks (its IMAGO_PDF_SPLASH_VERSION). */
#define IMAGO_PDF_INTERFACE 3

static pthread_mutex_t pdf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    imago_pdf *(*open)(const uint8_t *, size_t, int *, char *, size_t);
    int (*page_count)(imago_pdf *);
    int (*page_size)(imago_pdf *, int, double *, double *);
    int (*render)(imago_pdf *, int, uint8_t *, int, int, int, int, double, double, double, int, int, char *, size_t);
    void (*close)(imago_pdf *);
} pdf;
static int pdf_ok;

#define FIND(field, lib, name) ((pdf.field = (__typeof__(pdf.field))dlsym(lib, name)) != NULL)

/* libImagoPDF's functions when its code is linked into the program itself (the fuzzing build links
   it, so that it is instrumented like the rest); NULL otherwise, and the library is opened. */
extern int imago_pdf_splash_version(void) __attribute__((weak));
extern imago_pdf *imago_pdf_splash_open(const uint8_t *, size_t, int *, char *, size_t) __attribute__((weak));
extern int imago_pdf_splash_page_count(imago_pdf *) __attribute__((weak));
extern int imago_pdf_splash_page_size(imago_pdf *, int, double *, double *) __attribute__((weak));
extern int imago_pdf_splash_render(imago_pdf *, int, uint8_t *, int, int, int, int, double, double, double, int, int, char *, size_t)
    __attribute__((weak));
extern void imago_pdf_splash_close(imago_pdf *) __attribute__((weak));

static int linked_in(void) {
    if (!imago_pdf_splash_version || !imago_pdf_splash_open || !imago_pdf_splash_page_count || !imago_pdf_splash_page_size
        || !imago_pdf_splash_render || !imago_pdf_splash_close || imago_pdf_splash_version() != IMAGO_PDF_INTERFACE)
        return 0;
    pdf.open = imago_pdf_splash_open;
    pdf.page_count = imago_pdf_splash_page_count;
    pdf.page_size = imago_pdf_splash_page_size;
    pdf.render = imago_pdf_splash_render;
    pdf.close = imago_pdf_splash_close;
    return 1;
}

int imago_pdf_load(const char *path, char *error, size_t error_length) {
    pthread_mutex_lock(&pdf_lock);
    if (!pdf_ok && linked_in()) pdf_ok = 1;
    if (!pdf_ok) {
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            if (error && error_length) snprintf(error, error_length, "cannot open %s: %s", path, dlerror());
        } else {
            int (*version)(void) = (int (*)(void))dlsym(lib, "imago_pdf_splash_version");
            if (version && version() == IMAGO_PDF_INTERFACE && FIND(open, lib, "imago_pdf_splash_open") && FIND(page_count, lib, "imago_pdf_splash_page_count")
                && FIND(page_size, lib, "imago_pdf_splash_page_size") && FIND(render, lib, "imago_pdf_splash_render")
                && FIND(close, lib, "imago_pdf_splash_close")) {
                pdf_ok = 1;
            } else {
                if (error && error_length) snprintf(error, error_length, "not Imago's PDF library, or of another version: %s", path);
                dlclose(lib);
            }
        }
    }
    int ok = pdf_ok;
    pthread_mutex_unlock(&pdf_lock);
    return ok;
}

int imago_pdf_available(void) {
    pthread_mutex_lock(&pdf_lock);
    int ok = pdf_ok;
    pthread_mutex_unlock(&pdf_lock);
    return ok;
}

/* The calls below are made only on a document opened here, so after a successful load. */
imago_pdf *imago_pdf_open(const uint8_t *data, size_t length, int *needs_password, char *err, size_t err_length) {
    *needs_password = 0;
    if (!imago_pdf_available()) {
        if (err && err_length) snprintf(err, err_length, "libImagoPDF is not loaded");
        return NULL;
    }
    return pdf.open(data, length, needs_password, err, err_length);
}

int imago_pdf_page_count(imago_pdf *document) { return pdf.page_count(document); }

int imago_pdf_page_size(imago_pdf *document, int index, double *width, double *height) {
    return pdf.page_size(document, index, width, height);
}

int imago_pdf_render(imago_pdf *document, int index, uint8_t *pixels, int width, int height, int stride, int layout,
                     double scale_x, double scale_y, double max_seconds, int bands, int threads, char *err,
                     size_t err_length) {
    return pdf.render(document, index, pixels, width, height, stride, layout, scale_x, scale_y, max_seconds, bands, threads, err,
                      err_length);
}

void imago_pdf_close(imago_pdf *document) {
    if (document) pdf.close(document);
}
