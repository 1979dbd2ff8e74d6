// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include "Error.h"
#include "ErrorCodes.h"
#include "GlobalParams.h"
#include "Object.h"
#include "PDFDoc.h"
#include "Page.h"
#include "SplashOutputDev.h"
#include "Stream.h"
#include "splash/SplashBitmap.h"
#include "imago_pdf_splash.h"

/* Pages drawn as pdftoppm draws them (poppler's utils/pdftoppm.cc, whose defaults are followed
   here): Splash in RGB8 on white paper, font and vector anti-aliasing on, FreeType on, thin lines
   as they come, no overprint preview, annotations drawn, the page laid out on its MediaBox and
   turned by its `/Rotate`. */

struct imago_pdf_splash {
    PDFDoc *document = nullptr;
    char *bytes = nullptr; /* poppler reads the data in place for the document's life */
};

/* poppler reports through one process-wide callback; each thread keeps the first message of
   the call it is in, for the caller's error. */
static thread_local std::string first_message;

static void record(ErrorCategory, Goffset, const char *message) {
    if (first_message.empty() && message) first_message = message;
}

static std::once_flag started;

static void start(void) {
    std::call_once(started, [] {
        if (!globalParams) globalParams = std::make_unique<GlobalParams>();
        setErrorCallback(record);
    });
}

static void say(char *error, size_t length, const char *what) {
    if (!error || length == 0) return;
    if (first_message.empty()) {
        std::snprintf(error, length, "%s", what);
    } else {
        std::snprintf(error, length, "%s: %s", what, first_message.c_str());
    }
}

static const char *open_failure(int code) {
    switch (code) {
    case errBadCatalog: return "the document's catalog cannot be read";
    case errDamaged: return "the document is damaged";
    case errEncrypted: return "the document is encrypted and needs a password";
    case errPermission: return "the document's permissions refuse it";
    default: return "the document cannot be read";
    }
}

extern "C" int imago_pdf_splash_version(void) { return IMAGO_PDF_SPLASH_VERSION; }

extern "C" imago_pdf_splash *imago_pdf_splash_open(const uint8_t *data, size_t length, int *needs_password, char *error,
                                                   size_t error_length) {
    *needs_password = 0;
    first_message.clear();
    if (!data || length == 0 || length > (size_t)INT32_MAX) {
        say(error, error_length, "the document is empty or over 2 GiB");
        return nullptr;
    }
    try {
        start();
        auto *pdf = new imago_pdf_splash();
        pdf->bytes = static_cast<char *>(std::malloc(length));
        if (!pdf->bytes) {
            delete pdf;
            say(error, error_length, "out of memory");
            return nullptr;
        }
        std::memcpy(pdf->bytes, data, length);
        /* No password: a document encrypted with the empty user password opens, as in pdftoppm. */
        pdf->document = new PDFDoc(new MemStream(pdf->bytes, 0, (Goffset)length, Object(objNull)));
        if (!pdf->document->isOk()) {
            const int code = pdf->document->getErrorCode();
            *needs_password = code == errEncrypted;
            say(error, error_length, open_failure(code));
            imago_pdf_splash_close(pdf);
            return nullptr;
        }
        return pdf;
    } catch (const std::bad_alloc &) {
        say(error, error_length, "out of memory");
    } catch (...) {
        say(error, error_length, "poppler failed reading the document");
    }
    return nullptr;
}

extern "C" int imago_pdf_splash_page_count(imago_pdf_splash *pdf) { return pdf->document->getNumPages(); }

static Page *page_at(imago_pdf_splash *pdf, int index) {
    if (index < 0 || index >= pdf->document->getNumPages()) return nullptr;
    return pdf->document->getPage(index + 1);
}

extern "C" int imago_pdf_splash_page_size(imago_pdf_splash *pdf, int index, double *width, double *height) {
    first_message.clear();
    Page *page = page_at(pdf, index);
    if (!page) return 0;
    double w = page->getMediaWidth(), h = page->getMediaHeight();
    const int rotate = page->getRotate();
    if (rotate == 90 || rotate == 270) std::swap(w, h);
    *width = w;
    *height = h;
    return 1;
}

/* The deadline, checked by poppler between drawing operators. */
struct deadline {
    double at; /* CLOCK_MONOTONIC seconds; infinite for none */
    bool passed = false;
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool past(void *data) {
    auto *d = static_cast<deadline *>(data);
    if (!d->passed && now() > d->at) d->passed = true;
    return d->passed;
}

/* Splash's RGB rows into the caller's layout, opaque; what the bitmap does not cover stays white
   paper. Pages are opaque, so premultiplied and straight alpha are the same bytes. */
static void copy_pixels(SplashBitmap *bitmap, uint8_t *pixels, int width, int height, int stride, int layout) {
    const int w = std::min(width, bitmap->getWidth()), h = std::min(height, bitmap->getHeight());
    const SplashColorPtr data = bitmap->getDataPtr();
    const int row_size = bitmap->getRowSize();
    const int bytes = layout == IMAGO_PDF_RGB8 ? 3 : 4;
    for (int y = 0; y < height; y++) {
        uint8_t *out = pixels + (size_t)y * (size_t)stride;
        int x = 0;
        if (y < h) {
            const uint8_t *in = data + (ptrdiff_t)y * row_size;
            if (layout == IMAGO_PDF_RGB8) {
                std::memcpy(out, in, (size_t)w * 3);
            } else if (layout == IMAGO_PDF_RGBA8) {
                for (int i = 0; i < w; i++) {
                    out[4 * i] = in[3 * i], out[4 * i + 1] = in[3 * i + 1], out[4 * i + 2] = in[3 * i + 2], out[4 * i + 3] = 255;
                }
            } else {
                for (int i = 0; i < w; i++) {
                    out[4 * i] = in[3 * i + 2], out[4 * i + 1] = in[3 * i + 1], out[4 * i + 2] = in[3 * i], out[4 * i + 3] = 255;
                }
            }
            x = w;
        }
        std::memset(out + (size_t)x * bytes, 255, (size_t)(width - x) * bytes);
    }
}

extern "C" int imago_pdf_splash_render(imago_pdf_splash *pdf, int index, uint8_t *pixels, int width, int height, int stride,
                                       int layout, double scale_x, double scale_y, double max_seconds, char *error,
                                       size_t error_length) {
    first_message.clear();
    Page *page = page_at(pdf, index);
    if (!page) {
        say(error, error_length, "the page cannot be read");
        return 1;
    }
    try {
        SplashColor paper;
        paper[0] = paper[1] = paper[2] = 255;
        SplashOutputDev out(splashModeRGB8, 4, false, paper, true, splashThinLineDefault, false);
        out.setFontAntialias(true);
        out.setVectorAntialias(true);
        out.setEnableFreeType(true);
        out.startDoc(pdf->document);
        deadline limit{std::isfinite(max_seconds) ? now() + max_seconds : INFINITY};
        pdf->document->displayPageSlice(&out, index + 1, 72.0 * scale_x, 72.0 * scale_y, 0, true, false, false, 0, 0, width,
                                        height, past, &limit);
        /* poppler asks between operators, every so many of them: a page of a few operators is
           measured when it is done. */
        if (limit.passed || past(&limit)) {
            say(error, error_length, "the render ran out of time");
            return 2;
        }
        SplashBitmap *bitmap = out.getBitmap();
        if (!bitmap || bitmap->getMode() != splashModeRGB8 || !bitmap->getDataPtr()) {
            say(error, error_length, "the page could not be drawn");
            return 1;
        }
        copy_pixels(bitmap, pixels, width, height, stride, layout);
        return 0;
    } catch (const std::bad_alloc &) {
        say(error, error_length, "out of memory");
    } catch (...) {
        say(error, error_length, "poppler failed drawing the page");
    }
    return 1;
}

extern "C" void imago_pdf_splash_close(imago_pdf_splash *pdf) {
    if (!pdf) return;
    delete pdf->document; /* and its stream */
    std::free(pdf->bytes);
    delete pdf;
}
