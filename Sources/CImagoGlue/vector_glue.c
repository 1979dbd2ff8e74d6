// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include "imago_glue.h"

/* SVG through librsvg, drawn with cairo (PDF is pdf_loader.c's). The libraries are loaded when
   first used: librsvg pulls in pango, fontconfig, freetype and libxml2, which `imago` should not
   map at start-up. Their headers are not needed either: the few
   types and functions used here are declared below, as their stable C ABIs define them (glib's
   GError, librsvg's RsvgRectangle and RsvgLength, cairo's observer callbacks). */

typedef int gboolean;
typedef struct { uint32_t domain; int code; char *message; } GError;
typedef struct _RsvgHandle RsvgHandle;
typedef struct { double x, y, width, height; } RsvgRectangle;
typedef struct { double length; int unit; } RsvgLength;
typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
typedef void (*observer_cb)(cairo_surface_t *observer, cairo_surface_t *target, void *data);

enum { CAIRO_FORMAT_ARGB32 = 0, CAIRO_STATUS_SUCCESS = 0 };

static struct {
    RsvgHandle *(*new_from_data)(const uint8_t *, size_t, GError **);
    void (*set_dpi)(RsvgHandle *, double);
    void (*dimensions)(RsvgHandle *, gboolean *, RsvgLength *, gboolean *, RsvgLength *, gboolean *, RsvgRectangle *);
    gboolean (*size_in_pixels)(RsvgHandle *, double *, double *);
    gboolean (*render_document)(RsvgHandle *, cairo_t *, const RsvgRectangle *, GError **);
} rsvg;

static struct {
    cairo_surface_t *(*image_for_data)(unsigned char *, int, int, int, int);
    cairo_surface_t *(*image_create)(int, int, int);
    cairo_surface_t *(*create_observer)(cairo_surface_t *, int);
    cairo_surface_t *(*tee_create)(cairo_surface_t *);
    void (*tee_add)(cairo_surface_t *, cairo_surface_t *);
    void (*transform)(cairo_t *, const double *);
    int (*add_paint)(cairo_surface_t *, observer_cb, void *);
    int (*add_mask)(cairo_surface_t *, observer_cb, void *);
    int (*add_fill)(cairo_surface_t *, observer_cb, void *);
    int (*add_stroke)(cairo_surface_t *, observer_cb, void *);
    int (*add_glyphs)(cairo_surface_t *, observer_cb, void *);
    int (*surface_status)(cairo_surface_t *);
    void (*surface_finish)(cairo_surface_t *);
    void (*surface_flush)(cairo_surface_t *);
    void (*surface_destroy)(cairo_surface_t *);
    cairo_t *(*create)(cairo_surface_t *);
    void (*destroy)(cairo_t *);
    int (*status)(cairo_t *);
    void (*scale)(cairo_t *, double, double);
    void (*set_source_rgb)(cairo_t *, double, double, double);
    void (*paint)(cairo_t *);
    void (*g_object_unref)(void *);
    void (*g_error_free)(GError *);
} cairo;

#define LOAD(table, field, lib, name) ((table.field = (__typeof__(table.field))dlsym(lib, name)) != NULL)

static int cairo_ok, rsvg_ok;
static pthread_once_t cairo_once = PTHREAD_ONCE_INIT, rsvg_once = PTHREAD_ONCE_INIT;

static void cairo_load(void) {
    void *c = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    void *g = dlopen("libgobject-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    void *gl = dlopen("libglib-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!c || !g || !gl) return;
    cairo_ok = LOAD(cairo, image_for_data, c, "cairo_image_surface_create_for_data")
        && LOAD(cairo, image_create, c, "cairo_image_surface_create")
        && LOAD(cairo, create_observer, c, "cairo_surface_create_observer")
        && LOAD(cairo, tee_create, c, "cairo_tee_surface_create")
        && LOAD(cairo, tee_add, c, "cairo_tee_surface_add")
        && LOAD(cairo, transform, c, "cairo_transform")
        && LOAD(cairo, add_paint, c, "cairo_surface_observer_add_paint_callback")
        && LOAD(cairo, add_mask, c, "cairo_surface_observer_add_mask_callback")
        && LOAD(cairo, add_fill, c, "cairo_surface_observer_add_fill_callback")
        && LOAD(cairo, add_stroke, c, "cairo_surface_observer_add_stroke_callback")
        && LOAD(cairo, add_glyphs, c, "cairo_surface_observer_add_glyphs_callback")
        && LOAD(cairo, surface_status, c, "cairo_surface_status")
        && LOAD(cairo, surface_finish, c, "cairo_surface_finish")
        && LOAD(cairo, surface_flush, c, "cairo_surface_flush")
        && LOAD(cairo, surface_destroy, c, "cairo_surface_destroy")
        && LOAD(cairo, create, c, "cairo_create")
        && LOAD(cairo, destroy, c, "cairo_destroy")
        && LOAD(cairo, status, c, "cairo_status")
        && LOAD(cairo, scale, c, "cairo_scale")
        && LOAD(cairo, set_source_rgb, c, "cairo_set_source_rgb")
        && LOAD(cairo, paint, c, "cairo_paint")
        && LOAD(cairo, g_object_unref, g, "g_object_unref")
        && LOAD(cairo, g_error_free, gl, "g_error_free");
}

static void rsvg_load(void) {
    pthread_once(&cairo_once, cairo_load);
    if (!cairo_ok) return;
    void *l = dlopen("librsvg-2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!l) return;
    rsvg_ok = LOAD(rsvg, new_from_data, l, "rsvg_handle_new_from_data")
        && LOAD(rsvg, set_dpi, l, "rsvg_handle_set_dpi")
        && LOAD(rsvg, dimensions, l, "rsvg_handle_get_intrinsic_dimensions")
        && LOAD(rsvg, size_in_pixels, l, "rsvg_handle_get_intrinsic_size_in_pixels")
        && LOAD(rsvg, render_document, l, "rsvg_handle_render_document");
}

int imago_svg_available(void) {
    pthread_once(&rsvg_once, rsvg_load);
    return rsvg_ok;
}

static void copy_message(GError *error, const char *fallback, char *err, size_t err_length) {
    if (err && err_length) snprintf(err, err_length, "%s", error && error->message ? error->message : fallback);
    if (error) cairo.g_error_free(error);
}

/* --- Rendering with a deadline --- */

/* cairo offers no way to interrupt a drawing, and librsvg 2.54 takes no cancellable for
   rendering. So the drawing goes through a tee surface: to the target, and to an
   observer surface whose callbacks run on the drawing thread after every paint, mask, fill,
   stroke and glyph run. Past the deadline the callback puts the drawing's context into an error
   state (a singular transform is refused before cairo touches any state, so this is safe in the
   middle of an operation); every later operation on it then fails at once, and librsvg stops with an
   error.

   cairo 1.16 never frees an observer's callbacks, so each thread keeps one observer (over a 1x1
   sink) for its life, and the callbacks find the render under way in thread-local storage. */
typedef struct {
    struct timespec deadline;
    int timed_out;
} render_clock;

typedef struct {
    cairo_surface_t *target, *tee;
    cairo_t *cr;
    render_clock clock;
    const char *failure; /* what could not be set up */
} render_target;

static __thread render_target *current_render;
static __thread cairo_surface_t *thread_observer;
static pthread_key_t observer_key;
static pthread_once_t observer_key_once = PTHREAD_ONCE_INIT;

static void check_deadline(cairo_surface_t *observer, cairo_surface_t *target, void *data) {
    (void)observer;
    (void)target;
    (void)data;
    render_target *t = current_render;
    if (!t || t->clock.timed_out) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > t->clock.deadline.tv_sec ||
        (now.tv_sec == t->clock.deadline.tv_sec && now.tv_nsec >= t->clock.deadline.tv_nsec)) {
        t->clock.timed_out = 1;
        const double singular[6] = {0, 0, 0, 0, 0, 0};
        cairo.transform(t->cr, singular);
    }
}

static void observer_release(void *observer) {
    cairo.surface_destroy(observer);
}

static void observer_key_create(void) {
    pthread_key_create(&observer_key, observer_release);
}

/* This thread's observer, made on first use and released when the thread ends. */
static cairo_surface_t *watch(void) {
    if (thread_observer && cairo.surface_status(thread_observer) == CAIRO_STATUS_SUCCESS) return thread_observer;
    if (thread_observer) {
        /* An operation failed on it (its errors are sticky): start afresh. */
        pthread_setspecific(observer_key, NULL);
        cairo.surface_destroy(thread_observer);
        thread_observer = NULL;
    }
    cairo_surface_t *sink = cairo.image_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_surface_t *observer = cairo.create_observer(sink, 0);
    cairo.surface_destroy(sink); /* the observer holds it */
    if (cairo.surface_status(observer) != CAIRO_STATUS_SUCCESS) {
        cairo.surface_destroy(observer);
        return NULL;
    }
    cairo.add_paint(observer, check_deadline, NULL);
    cairo.add_mask(observer, check_deadline, NULL);
    cairo.add_fill(observer, check_deadline, NULL);
    cairo.add_stroke(observer, check_deadline, NULL);
    cairo.add_glyphs(observer, check_deadline, NULL);
    pthread_once(&observer_key_once, observer_key_create);
    pthread_setspecific(observer_key, observer);
    thread_observer = observer;
    return observer;
}

static int target_open(render_target *t, uint8_t *pixels, int width, int height, int stride, double max_seconds) {
    memset(t, 0, sizeof *t);
    clock_gettime(CLOCK_MONOTONIC, &t->clock.deadline);
    if (max_seconds > 0 && max_seconds < 1e6) {
        double whole = (double)(long)max_seconds;
        t->clock.deadline.tv_sec += (time_t)whole;
        t->clock.deadline.tv_nsec += (long)((max_seconds - whole) * 1e9);
        if (t->clock.deadline.tv_nsec >= 1000000000L) {
            t->clock.deadline.tv_sec += 1;
            t->clock.deadline.tv_nsec -= 1000000000L;
        }
    } else if (max_seconds <= 0) {
        /* Already out of time: the first operation stops the render. */
    } else {
        t->clock.deadline.tv_sec += 1000000;
    }
    t->failure = "cairo cannot make a surface of this size";
    t->target = cairo.image_for_data(pixels, CAIRO_FORMAT_ARGB32, width, height, stride);
    if (cairo.surface_status(t->target) != CAIRO_STATUS_SUCCESS) return 0;
    t->failure = "cairo cannot make the render's observer";
    cairo_surface_t *observer = watch();
    if (!observer) return 0;
    t->failure = "cairo cannot make the render's tee surface";
    t->tee = cairo.tee_create(t->target);
    if (cairo.surface_status(t->tee) != CAIRO_STATUS_SUCCESS) return 0;
    cairo.tee_add(t->tee, observer);
    if (cairo.surface_status(t->tee) != CAIRO_STATUS_SUCCESS) return 0;
    t->failure = "cairo cannot make a drawing context";
    t->cr = cairo.create(t->tee);
    if (cairo.status(t->cr) != CAIRO_STATUS_SUCCESS) return 0;
    t->failure = NULL;
    current_render = t;
    return 1;
}

/* Returns IMAGO_RENDER_OK, IMAGO_RENDER_TIMED_OUT or IMAGO_RENDER_FAILED. */
static int target_close(render_target *t, int drew) {
    int result = IMAGO_RENDER_FAILED;
    current_render = NULL;
    if (t->clock.timed_out) {
        result = IMAGO_RENDER_TIMED_OUT;
    } else if (drew && t->cr && cairo.status(t->cr) == CAIRO_STATUS_SUCCESS) {
        cairo.surface_flush(t->target);
        result = IMAGO_RENDER_OK;
    }
    if (t->cr) cairo.destroy(t->cr);
    if (t->tee) cairo.surface_destroy(t->tee);
    if (t->target) cairo.surface_destroy(t->target);
    return result;
}

/* --- SVG --- */

struct imago_svg { RsvgHandle *handle; };

imago_svg *imago_svg_open(const uint8_t *data, size_t length, char *err, size_t err_length) {
    if (!imago_svg_available()) {
        copy_message(NULL, "librsvg (librsvg2-2) is not installed", err, err_length);
        return NULL;
    }
    GError *error = NULL;
    /* No base file or URL: librsvg then refuses every reference outside the document (file:,
       http:, relative paths, XInclude, CSS @import, external entities); only data: URLs load. */
    RsvgHandle *handle = rsvg.new_from_data(data, length, &error);
    if (!handle) {
        copy_message(error, "the document cannot be parsed", err, err_length);
        return NULL;
    }
    if (error) cairo.g_error_free(error);
    rsvg.set_dpi(handle, 96);
    imago_svg *svg = calloc(1, sizeof *svg);
    if (!svg) {
        cairo.g_object_unref(handle);
        copy_message(NULL, "out of memory", err, err_length);
        return NULL;
    }
    svg->handle = handle;
    return svg;
}

void imago_svg_dimensions(imago_svg *svg, imago_svg_dimension *width, imago_svg_dimension *height,
                          int *has_view_box, double *view_box_width, double *view_box_height) {
    gboolean hw = 0, hh = 0, hv = 0;
    RsvgLength w = {0, 0}, h = {0, 0};
    RsvgRectangle vb = {0, 0, 0, 0};
    rsvg.dimensions(svg->handle, &hw, &w, &hh, &h, &hv, &vb);
    width->present = hw;
    width->length = w.length;
    width->unit = w.unit;
    height->present = hh;
    height->length = h.length;
    height->unit = h.unit;
    *has_view_box = hv;
    *view_box_width = vb.width;
    *view_box_height = vb.height;
}

int imago_svg_size_in_pixels(imago_svg *svg, double *width, double *height) {
    return rsvg.size_in_pixels(svg->handle, width, height);
}

int imago_svg_render(imago_svg *svg, uint8_t *pixels, int width, int height, int stride, double viewport_width,
                     double viewport_height, double scale_x, double scale_y, double max_seconds, char *err, size_t err_length) {
    render_target t;
    int drew = 0;
    GError *error = NULL;
    if (target_open(&t, pixels, width, height, stride, max_seconds)) {
        RsvgRectangle viewport = {0, 0, viewport_width, viewport_height};
        cairo.scale(t.cr, scale_x, scale_y);
        drew = rsvg.render_document(svg->handle, t.cr, &viewport, &error);
    }
    const char *failure = t.failure;
    int result = target_close(&t, drew);
    copy_message(error, result == IMAGO_RENDER_TIMED_OUT ? "the render ran out of time" : failure ? failure : "the drawing failed",
                 err, err_length);
    return result;
}

void imago_svg_close(imago_svg *svg) {
    if (!svg) return;
    cairo.g_object_unref(svg->handle);
    free(svg);
}

/* Whether a locale name names no language: empty, C, C.<codeset> or POSIX. */
static int names_no_language(const char *name) {
    return name == NULL || *name == '\0' || strcmp(name, "C") == 0 || strncmp(name, "C.", 2) == 0 || strcmp(name, "POSIX") == 0;
}

int imago_svg_default_language(void) {
    const char *language = getenv("LANGUAGE");
    if (language != NULL && *language != '\0') return 0;
    /* The locale glib takes for messages: the first of these that is set and not empty. */
    const char *names[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *value = getenv(names[i]);
        if (value == NULL || *value == '\0') continue;
        if (!names_no_language(value)) return 0;
        break;
    }
    return setenv("LANGUAGE", "en", 1) == 0;
}
