// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "imago_glue.h"

/* Text drawn with Pango and cairo (watermark_text), loaded when first used, as librsvg is
   (vector_glue.c), and declared here from their stable C ABIs. The text is Pango markup, drawn
   black on transparent into a cairo ARGB32 surface (premultiplied, Imago's display format). */

typedef struct _cairo_surface cairo_surface_t;
typedef struct _cairo cairo_t;
typedef struct _PangoLayout PangoLayout;
typedef struct _PangoContext PangoContext;
typedef struct _PangoFontDescription PangoFontDescription;
typedef struct { int x, y, width, height; } PangoRectangle;
typedef struct { uint32_t domain; int code; char *message; } GErrorPrefix;
typedef struct _PangoAttrList PangoAttrList;
/* A PangoAttribute starts with its class, whose first field is the attribute's type. */
typedef struct { const int *klass; unsigned start_index, end_index; } PangoAttributePrefix;
typedef struct { PangoAttributePrefix attr; int size; } PangoAttrSizePrefix;
typedef struct { PangoAttributePrefix attr; PangoFontDescription *desc; } PangoAttrFontDescPrefix;
typedef struct { PangoAttributePrefix attr; double value; } PangoAttrFloatPrefix;
enum { PANGO_ATTR_SIZE = 7, PANGO_ATTR_FONT_DESC = 8, PANGO_ATTR_SCALE = 15, PANGO_ATTR_ABSOLUTE_SIZE = 20 };
/* The largest type drawn, in points (pixels at 72 dpi). Past FreeType's sizes cairo puts the
   font face in an error state for good, so every later text in that face fails: a giant size
   is refused before Pango lays anything out. */
#define MAX_POINTS 1000.0

enum { CAIRO_FORMAT_ARGB32 = 0, PANGO_SCALE = 1024, PANGO_WRAP_WORD_CHAR = 2 };
enum { PANGO_ALIGN_LEFT = 0, PANGO_ALIGN_CENTER = 1, PANGO_ALIGN_RIGHT = 2 };

static struct {
    cairo_surface_t *(*surface_create)(int, int, int);
    int (*surface_status)(cairo_surface_t *);
    void (*surface_flush)(cairo_surface_t *);
    unsigned char *(*surface_data)(cairo_surface_t *);
    int (*surface_stride)(cairo_surface_t *);
    void (*surface_destroy)(cairo_surface_t *);
    cairo_t *(*create)(cairo_surface_t *);
    int (*status)(cairo_t *);
    void (*destroy)(cairo_t *);
    void (*set_source_rgb)(cairo_t *, double, double, double);
    void (*move_to)(cairo_t *, double, double);
    PangoLayout *(*create_layout)(cairo_t *);
    void (*show_layout)(cairo_t *, PangoLayout *);
    void (*context_set_resolution)(PangoContext *, double);
    PangoContext *(*layout_context)(PangoLayout *);
    void (*layout_context_changed)(PangoLayout *);
    int (*parse_markup)(const char *, int, uint32_t, PangoAttrList **, char **, uint32_t *, void **);
    PangoAttrList *(*attr_filter)(PangoAttrList *, int (*)(PangoAttributePrefix *, void *), void *);
    void (*attr_list_unref)(PangoAttrList *);
    int (*font_size)(const PangoFontDescription *);
    void (*set_markup)(PangoLayout *, const char *, int);
    void (*set_width)(PangoLayout *, int);
    void (*set_wrap)(PangoLayout *, int);
    void (*set_alignment)(PangoLayout *, int);
    void (*pixel_extents)(PangoLayout *, PangoRectangle *, PangoRectangle *);
    PangoFontDescription *(*font_from_string)(const char *);
    void (*set_font)(PangoLayout *, const PangoFontDescription *);
    void (*font_free)(PangoFontDescription *);
    void (*object_unref)(void *);
    void (*error_free)(void *);
} t;

#define LOAD(field, lib, name) ((t.field = (__typeof__(t.field))dlsym(lib, name)) != NULL)

static int text_ok;
static pthread_once_t text_once = PTHREAD_ONCE_INIT;
/* Texts are drawn on one thread of their own, one at a time: pangocairo keeps a font map (and
   its font and glyph caches) per thread, so drawing from a pool's threads would keep one per
   thread. Callers wait for their text; watermark texts are small and kept by the service. */
static pthread_mutex_t text_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t text_asked = PTHREAD_COND_INITIALIZER, text_done = PTHREAD_COND_INITIALIZER;
static pthread_once_t worker_once = PTHREAD_ONCE_INIT;
static int worker_started;
static struct job {
    const char *markup, *font;
    int width, align;
    long max_pixels;
    uint8_t **out;
    int *out_width, *out_height;
    char *error;
    size_t error_length;
    int result;
    int pending, finished;
} *current_job;

static void text_load(void) {
    void *c = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    void *p = dlopen("libpango-1.0.so.0", RTLD_NOW | RTLD_LOCAL);
    void *pc = dlopen("libpangocairo-1.0.so.0", RTLD_NOW | RTLD_LOCAL);
    void *g = dlopen("libgobject-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    void *gl = dlopen("libglib-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!c || !p || !pc || !g || !gl) return;
    text_ok = LOAD(surface_create, c, "cairo_image_surface_create") && LOAD(surface_status, c, "cairo_surface_status")
        && LOAD(surface_flush, c, "cairo_surface_flush") && LOAD(surface_data, c, "cairo_image_surface_get_data")
        && LOAD(surface_stride, c, "cairo_image_surface_get_stride") && LOAD(surface_destroy, c, "cairo_surface_destroy")
        && LOAD(create, c, "cairo_create") && LOAD(status, c, "cairo_status") && LOAD(destroy, c, "cairo_destroy")
        && LOAD(set_source_rgb, c, "cairo_set_source_rgb") && LOAD(move_to, c, "cairo_move_to")
        && LOAD(create_layout, pc, "pango_cairo_create_layout") && LOAD(show_layout, pc, "pango_cairo_show_layout")
        && LOAD(context_set_resolution, pc, "pango_cairo_context_set_resolution")
        && LOAD(layout_context, p, "pango_layout_get_context") && LOAD(layout_context_changed, p, "pango_layout_context_changed")
        && LOAD(parse_markup, p, "pango_parse_markup") && LOAD(set_markup, p, "pango_layout_set_markup")
        && LOAD(attr_filter, p, "pango_attr_list_filter") && LOAD(attr_list_unref, p, "pango_attr_list_unref")
        && LOAD(font_size, p, "pango_font_description_get_size")
        && LOAD(set_width, p, "pango_layout_set_width") && LOAD(set_wrap, p, "pango_layout_set_wrap")
        && LOAD(set_alignment, p, "pango_layout_set_alignment") && LOAD(pixel_extents, p, "pango_layout_get_pixel_extents")
        && LOAD(font_from_string, p, "pango_font_description_from_string") && LOAD(set_font, p, "pango_layout_set_font_description")
        && LOAD(font_free, p, "pango_font_description_free") && LOAD(object_unref, g, "g_object_unref")
        && LOAD(error_free, gl, "g_error_free");
}

int imago_text_available(void) {
    pthread_once(&text_once, text_load);
    return text_ok;
}

/* The largest size and the product of the scales the markup asks for. */
struct sizes { double largest, scale; };

static int measure_attribute(PangoAttributePrefix *a, void *user) {
    struct sizes *s = user;
    switch (a->klass ? *a->klass : 0) {
    case PANGO_ATTR_SIZE:
    case PANGO_ATTR_ABSOLUTE_SIZE: {
        double points = ((PangoAttrSizePrefix *)a)->size / (double)PANGO_SCALE;
        if (points > s->largest) s->largest = points;
        break;
    }
    case PANGO_ATTR_FONT_DESC: {
        const PangoFontDescription *d = ((PangoAttrFontDescPrefix *)a)->desc;
        double points = d ? t.font_size(d) / (double)PANGO_SCALE : 0;
        if (points > s->largest) s->largest = points;
        break;
    }
    case PANGO_ATTR_SCALE: {
        double v = ((PangoAttrFloatPrefix *)a)->value;
        if (v > 1 && s->scale < 1e9) s->scale *= v;
        break;
    }
    default: break;
    }
    return 0; /* keep every attribute: this only looks */
}

/* A layout of `markup` in `font`, wrapped at `width` pixels (0: no wrapping), on `cr`. */
static PangoLayout *layout_for(cairo_t *cr, const char *markup, const char *font, int width, int align) {
    PangoLayout *layout = t.create_layout(cr);
    if (!layout) return NULL;
    /* 72 dpi: a point is a pixel, as libvips's text draws. */
    t.context_set_resolution(t.layout_context(layout), 72);
    t.layout_context_changed(layout);
    PangoFontDescription *desc = t.font_from_string(font);
    if (desc) {
        t.set_font(layout, desc);
        t.font_free(desc);
    }
    if (width > 0) {
        t.set_width(layout, width * PANGO_SCALE);
        t.set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    }
    t.set_alignment(layout, align);
    t.set_markup(layout, markup, -1);
    return layout;
}

static int render_locked(const char *markup, const char *font, int width, int align, long max_pixels, uint8_t **out,
                         int *out_width, int *out_height, char *error, size_t error_length);

static void *text_worker(void *unused) {
    (void)unused;
    pthread_mutex_lock(&text_lock);
    for (;;) {
        while (!current_job || !current_job->pending) pthread_cond_wait(&text_asked, &text_lock);
        struct job *j = current_job;
        j->pending = 0;
        pthread_mutex_unlock(&text_lock);
        j->result = render_locked(j->markup, j->font, j->width, j->align, j->max_pixels, j->out, j->out_width, j->out_height, j->error,
                                  j->error_length);
        pthread_mutex_lock(&text_lock);
        j->finished = 1;
        current_job = NULL;
        pthread_cond_broadcast(&text_done);
    }
    return NULL;
}

static void start_worker(void) {
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 4 << 20);
    worker_started = pthread_create(&thread, &attributes, text_worker, NULL) == 0;
    if (worker_started) pthread_detach(thread);
    pthread_attr_destroy(&attributes);
}

int imago_text_render(const char *markup, const char *font, int width, int align, long max_pixels, uint8_t **out, int *out_width,
                      int *out_height, char *error, size_t error_length) {
    pthread_once(&worker_once, start_worker);
    if (!worker_started) {
        snprintf(error, error_length, "no thread to draw text on");
        return -1;
    }
    struct job j = { markup, font, width, align, max_pixels, out, out_width, out_height, error, error_length, -1, 1, 0 };
    pthread_mutex_lock(&text_lock);
    /* One job at a time: wait for the slot, hand the job over, wait for it to finish. */
    while (current_job) pthread_cond_wait(&text_done, &text_lock);
    current_job = &j;
    pthread_cond_signal(&text_asked);
    while (!j.finished) pthread_cond_wait(&text_done, &text_lock);
    pthread_mutex_unlock(&text_lock);
    return j.result;
}

static int render_locked(const char *markup, const char *font, int width, int align, long max_pixels, uint8_t **out,
                         int *out_width, int *out_height, char *error, size_t error_length) {
    *out = NULL;
    if (!imago_text_available()) {
        snprintf(error, error_length, "Pango and cairo are not installed");
        return -1;
    }
    /* Markup Pango cannot parse is an error here, not a warning on stderr and a blank image. */
    void *gerror = NULL;
    PangoAttrList *attributes = NULL;
    if (!t.parse_markup(markup, -1, 0, &attributes, NULL, NULL, &gerror)) {
        const GErrorPrefix *e = gerror;
        snprintf(error, error_length, "%s", e && e->message ? e->message : "not Pango markup");
        if (gerror) t.error_free(gerror);
        return -1;
    }
    /* Sizes checked before any font is made at them (see MAX_POINTS). */
    struct sizes sizes = { 0, 1 };
    PangoFontDescription *base = t.font_from_string(font);
    if (base) {
        sizes.largest = t.font_size(base) / (double)PANGO_SCALE;
        t.font_free(base);
    }
    if (sizes.largest <= 0) sizes.largest = 12; /* Pango's default when the description has none */
    if (attributes) {
        PangoAttrList *removed = t.attr_filter(attributes, measure_attribute, &sizes);
        if (removed) t.attr_list_unref(removed);
        t.attr_list_unref(attributes);
    }
    if (sizes.largest * sizes.scale > MAX_POINTS) {
        snprintf(error, error_length, "type of %.0f points is over the limit of %.0f", sizes.largest * sizes.scale, MAX_POINTS);
        return -1;
    }
    /* Measure on a 1x1 surface, then draw on one of the text's size. */
    cairo_surface_t *probe = t.surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *pcr = t.create(probe);
    PangoLayout *layout = layout_for(pcr, markup, font, width, align);
    PangoRectangle ink = { 0 }, logical = { 0 };
    if (layout) {
        t.pixel_extents(layout, &ink, &logical);
        t.object_unref(layout);
    }
    t.destroy(pcr);
    t.surface_destroy(probe);
    if (!layout) {
        snprintf(error, error_length, "Pango could not lay the text out");
        return -1;
    }
    /* The union of the ink (glyphs that overhang) and the logical box. */
    int x0 = ink.x < logical.x ? ink.x : logical.x, y0 = ink.y < logical.y ? ink.y : logical.y;
    int x1 = ink.x + ink.width > logical.x + logical.width ? ink.x + ink.width : logical.x + logical.width;
    int y1 = ink.y + ink.height > logical.y + logical.height ? ink.y + ink.height : logical.y + logical.height;
    long w = (long)x1 - x0, h = (long)y1 - y0;
    if (w <= 0 || h <= 0) {
        snprintf(error, error_length, "the text draws nothing");
        return -1;
    }
    if (w > 32767 || h > 32767 || w * h > max_pixels) {
        snprintf(error, error_length, "the text would be %ldx%ld pixels, over the limit of %ld pixels", w, h, max_pixels);
        return -1;
    }
    cairo_surface_t *surface = t.surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h);
    if (t.surface_status(surface) != 0) {
        t.surface_destroy(surface);
        snprintf(error, error_length, "cairo could not make a %ldx%ld surface", w, h);
        return -1;
    }
    cairo_t *cr = t.create(surface);
    layout = layout_for(cr, markup, font, width, align);
    int ok = layout != NULL;
    if (layout) {
        t.set_source_rgb(cr, 0, 0, 0);
        t.move_to(cr, -x0, -y0);
        t.show_layout(cr, layout);
        t.object_unref(layout);
    }
    int drawn = t.status(cr);
    ok = ok && drawn == 0;
    t.destroy(cr);
    t.surface_flush(surface);
    uint8_t *pixels = ok ? malloc((size_t)w * (size_t)h * 4) : NULL;
    if (pixels) {
        const unsigned char *data = t.surface_data(surface);
        int stride = t.surface_stride(surface);
        for (long y = 0; y < h; y++) memcpy(pixels + y * w * 4, data + y * stride, (size_t)w * 4);
    }
    t.surface_destroy(surface);
    if (!pixels) {
        snprintf(error, error_length, "the text could not be drawn (cairo status %d, layout %s)", drawn, layout ? "made" : "none");
        return -1;
    }
    *out = pixels;
    *out_width = (int)w;
    *out_height = (int)h;
    return 0;
}
