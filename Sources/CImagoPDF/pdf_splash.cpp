// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <atomic>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>
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
   turned by its `/Rotate`.

   A large page can be drawn in horizontal bands, each the slice of the page pdftoppm's -y and -H
   options draw, by more than one thread at once. poppler's documents are not shared between
   threads, so each thread after the caller's opens its own document on the same bytes. The bands
   depend on the page alone, never on the threads, so the pixels are the same however many threads
   draw them; they can differ from a page drawn in one piece where an edge falls exactly on
   Splash's sampling grid (the slice's origin is moved in floating point). */

struct imago_pdf_splash {
    PDFDoc *document = nullptr;
    char *bytes = nullptr; /* poppler reads the data in place for the document's life */
    size_t length = 0;
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

/* A document read in place from `bytes`. No password: a document encrypted with the empty user
   password opens, as in pdftoppm. */
static PDFDoc *document_on(char *bytes, size_t length) {
    return new PDFDoc(new MemStream(bytes, 0, (Goffset)length, Object(objNull)));
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
        pdf->length = length;
        pdf->document = document_on(pdf->bytes, length);
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

/* The deadline, checked by poppler between drawing operators; a band that fails or runs out of
   time stops the others too. */
struct deadline {
    double at; /* CLOCK_MONOTONIC seconds; infinite for none */
    std::atomic<bool> *stop;
    bool passed = false;
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool past(void *data) {
    auto *d = static_cast<deadline *>(data);
    if (!d->passed && (now() > d->at || d->stop->load(std::memory_order_relaxed))) d->passed = true;
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

/* A page drawn in bands: rows `top[i]` to `top[i + 1]` of the page are band i. Threads take the
   next band not yet taken, so a band dense with drawing does not hold the others up; the first
   failure stops every thread and is the one reported. */
struct page_job {
    int index, width, stride, layout;
    uint8_t *pixels;
    double scale_x, scale_y, at;
    std::vector<int> top;
    std::atomic<int> next{0};
    std::atomic<bool> stop{false};
    std::mutex lock;
    int status = 0; /* IMAGO_RENDER_*: 0 drawn, 1 failed, 2 out of time */
    std::string message;

    int bands() const { return (int)top.size() - 1; }

    void fail(int code, std::string why) {
        std::lock_guard<std::mutex> hold(lock);
        if (status == 0) status = code, message = std::move(why);
        stop.store(true);
    }
};

/* Band i drawn by `out` (its bitmap reused from the band before when the size is the same, as
   pdftoppm reuses it from page to page) and copied into the caller's rows. */
static void draw_band(SplashOutputDev &out, PDFDoc *document, page_job &job, int i) {
    const int top = job.top[(size_t)i], rows = job.top[(size_t)i + 1] - top;
    deadline limit{job.at, &job.stop};
    document->displayPageSlice(&out, job.index + 1, 72.0 * job.scale_x, 72.0 * job.scale_y, 0, true, false, false, 0, top,
                               job.width, rows, past, &limit);
    /* poppler asks between operators, every so many of them: a page of a few operators is
       measured when it is done. */
    if (job.stop.load()) return; /* another band failed, and said why */
    if (limit.passed || past(&limit)) {
        job.fail(2, "the render ran out of time");
        return;
    }
    SplashBitmap *bitmap = out.getBitmap();
    if (!bitmap || bitmap->getMode() != splashModeRGB8 || !bitmap->getDataPtr()) {
        job.fail(1, first_message.empty() ? "the page could not be drawn" : "the page could not be drawn: " + first_message);
        return;
    }
    copy_pixels(bitmap, job.pixels + (size_t)top * (size_t)job.stride, job.width, rows, job.stride, job.layout);
}

/* One thread's share: bands taken one at a time until none is left, drawn with `document`. */
static void draw_bands(PDFDoc *document, page_job &job) {
    first_message.clear();
    try {
        SplashColor paper;
        paper[0] = paper[1] = paper[2] = 255;
        SplashOutputDev out(splashModeRGB8, 4, false, paper, true, splashThinLineDefault, false);
        out.setFontAntialias(true);
        out.setVectorAntialias(true);
        out.setEnableFreeType(true);
        out.startDoc(document);
        for (int i = job.next++; i < job.bands() && !job.stop.load(); i = job.next++) draw_band(out, document, job, i);
    } catch (const std::bad_alloc &) {
        job.fail(1, "out of memory");
    } catch (...) {
        job.fail(1, first_message.empty() ? "poppler failed drawing the page" : "poppler failed drawing the page: " + first_message);
    }
}

/* A thread after the caller's, with a document of its own on the same bytes. When that document
   cannot be had (memory), the thread leaves its bands to the others, the caller's at least. */
static void draw_bands_alone(imago_pdf_splash *pdf, page_job &job) {
    std::unique_ptr<PDFDoc> document;
    try {
        document.reset(document_on(pdf->bytes, pdf->length));
    } catch (...) {
        return;
    }
    if (document && document->isOk()) draw_bands(document.get(), job);
}

extern "C" int imago_pdf_splash_render(imago_pdf_splash *pdf, int index, uint8_t *pixels, int width, int height, int stride,
                                       int layout, double scale_x, double scale_y, double max_seconds, int bands, int threads,
                                       char *error, size_t error_length) {
    first_message.clear();
    if (!page_at(pdf, index)) {
        say(error, error_length, "the page cannot be read");
        return 1;
    }
    page_job job{index, width, stride, layout, pixels, scale_x, scale_y, std::isfinite(max_seconds) ? now() + max_seconds : INFINITY};
    const int count = std::max(1, std::min(bands, height));
    try {
        job.top.reserve((size_t)count + 1);
    } catch (...) {
        say(error, error_length, "out of memory");
        return 1;
    }
    for (int i = 0; i <= count; i++) job.top.push_back((int)((int64_t)height * i / count));
    std::vector<std::thread> helpers;
    try {
        const int extra = std::max(0, std::min(threads, count) - 1);
        helpers.reserve((size_t)extra);
        for (int i = 0; i < extra; i++) helpers.emplace_back(draw_bands_alone, pdf, std::ref(job));
    } catch (...) {
        /* No thread to be had: the bands are drawn by those there are, this one at least. */
    }
    draw_bands(pdf->document, job);
    for (auto &helper : helpers) helper.join();
    if (job.status != 0 && error && error_length) std::snprintf(error, error_length, "%s", job.message.c_str());
    return job.status;
}

extern "C" void imago_pdf_splash_close(imago_pdf_splash *pdf) {
    if (!pdf) return;
    delete pdf->document; /* and its stream */
    std::free(pdf->bytes);
    delete pdf;
}
