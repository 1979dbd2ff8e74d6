// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "imago_glue.h"

/* libexif, for EXIF fields by name with their display values (`/info`'s `exif`): loaded when
   first used, as libxml2 is (xml_glue.c), and declared here from its stable C ABI. An ExifEntry
   starts with its tag; everything else is reached through functions. */

typedef struct _ExifData ExifData;
typedef struct _ExifContent ExifContent;
typedef struct { int tag; } ExifEntryPrefix;
typedef void (*ExifContentFunc)(ExifContent *, void *);
typedef void (*ExifEntryFunc)(void *, void *);

/* EXIF_DATA_OPTION_FOLLOW_SPECIFICATION: when set, loading "fixes" the data, adding entries the
   file does not have. They must not be reported. */
enum { FOLLOW_SPECIFICATION = 1 << 1, IFD_1 = 1 };

static struct {
    ExifData *(*data_new)(void);
    void (*unset_option)(ExifData *, int);
    void (*load)(ExifData *, const unsigned char *, unsigned int);
    void (*foreach_content)(ExifData *, ExifContentFunc, void *);
    void (*foreach_entry)(ExifContent *, ExifEntryFunc, void *);
    int (*content_ifd)(ExifContent *);
    const char *(*entry_value)(void *, char *, unsigned int);
    const char *(*tag_name)(int, int);
    const char *(*tag_title)(int, int);
    void (*unref)(ExifData *);
} exif;

#define LOAD(field, lib, name) ((exif.field = (__typeof__(exif.field))dlsym(lib, name)) != NULL)

static int exif_ok;
static pthread_once_t exif_once = PTHREAD_ONCE_INIT;

static void exif_load(void) {
    void *l = dlopen("libexif.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!l) return;
    exif_ok = LOAD(data_new, l, "exif_data_new") && LOAD(unset_option, l, "exif_data_unset_option")
        && LOAD(load, l, "exif_data_load_data") && LOAD(foreach_content, l, "exif_data_foreach_content")
        && LOAD(foreach_entry, l, "exif_content_foreach_entry") && LOAD(content_ifd, l, "exif_content_get_ifd")
        && LOAD(entry_value, l, "exif_entry_get_value") && LOAD(tag_name, l, "exif_tag_get_name_in_ifd")
        && LOAD(tag_title, l, "exif_tag_get_title_in_ifd") && LOAD(unref, l, "exif_data_unref");
}

int imago_exif_available(void) {
    pthread_once(&exif_once, exif_load);
    return exif_ok;
}

struct walk {
    int canonical;
    int ifd;
    char *out;
    size_t capacity, used;
    int count;
};

static void put(struct walk *w, const char *s) {
    size_t n = strlen(s) + 1;
    if (w->used + n > w->capacity) {
        w->capacity = 0; /* full: stop writing */
        return;
    }
    memcpy(w->out + w->used, s, n);
    w->used += n;
}

static void on_entry(void *entry, void *user) {
    struct walk *w = user;
    if (!w->capacity) return;
    int tag = ((ExifEntryPrefix *)entry)->tag;
    const char *name = w->canonical ? exif.tag_name(tag, w->ifd) : exif.tag_title(tag, w->ifd);
    if (!name || !*name) return;
    char value[1024];
    value[0] = 0;
    exif.entry_value(entry, value, sizeof value);
    value[sizeof value - 1] = 0;
    size_t start = w->used;
    put(w, name);
    put(w, value);
    if (!w->capacity) {
        w->used = start;
        return;
    }
    w->count++;
}

static void on_content(ExifContent *content, void *user) {
    struct walk *w = user;
    w->ifd = exif.content_ifd(content);
    /* IFD 1 describes the embedded thumbnail, not the image. */
    if (w->ifd == IFD_1) return;
    exif.foreach_entry(content, on_entry, w);
}

int imago_exif_fields(const uint8_t *tiff, size_t length, int canonical, char *out, size_t capacity) {
    if (!imago_exif_available() || length > 0xFFFFFF) return -1;
    /* libexif reads an "Exif\0\0" block; the TIFF data comes after its six bytes. */
    unsigned char *block = malloc(length + 6);
    if (!block) return -1;
    memcpy(block, "Exif\0\0", 6);
    memcpy(block + 6, tiff, length);
    ExifData *d = exif.data_new();
    if (!d) {
        free(block);
        return -1;
    }
    exif.unset_option(d, FOLLOW_SPECIFICATION);
    exif.load(d, block, (unsigned int)(length + 6));
    struct walk w = { canonical, 0, out, capacity, 0, 0 };
    exif.foreach_content(d, on_content, &w);
    exif.unref(d);
    free(block);
    return w.count;
}
