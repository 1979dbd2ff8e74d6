// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include "imago_glue.h"

/* libxml2's streaming reader (xmlTextReader), for the SVG sanitiser. Loaded when first used, as
   librsvg is (vector_glue.c), and declared here from its stable C ABI rather than its headers:
   an opaque reader, and the leading fields of xmlError that say what went wrong where. */

typedef struct _xmlTextReader xmlTextReader;
typedef struct {
    int domain;
    int code;
    char *message;
    int level;
    char *file;
    int line;
} xmlErrorPrefix;
typedef void (*xmlStructuredErrorFunc)(void *user, void *error);

/* XML_PARSE_NOENT | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NONET */
enum { READER_OPTIONS = (1 << 1) | (1 << 5) | (1 << 6) | (1 << 11) };

static struct {
    void (*init)(void);
    xmlTextReader *(*for_memory)(const char *, int, const char *, const char *, int);
    int (*read)(xmlTextReader *);
    int (*next)(xmlTextReader *);
    int (*node_type)(xmlTextReader *);
    const unsigned char *(*name)(xmlTextReader *);
    const unsigned char *(*local_name)(xmlTextReader *);
    const unsigned char *(*value)(xmlTextReader *);
    int (*is_empty)(xmlTextReader *);
    int (*next_attribute)(xmlTextReader *);
    int (*to_element)(xmlTextReader *);
    void (*set_errors)(xmlTextReader *, xmlStructuredErrorFunc, void *);
    void (*free)(xmlTextReader *);
} xml;

#define LOAD(table, field, lib, name) ((table.field = (__typeof__(table.field))dlsym(lib, name)) != NULL)

static int xml_ok;
static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_load(void) {
    void *l = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!l) return;
    xml_ok = LOAD(xml, init, l, "xmlInitParser")
        && LOAD(xml, for_memory, l, "xmlReaderForMemory")
        && LOAD(xml, read, l, "xmlTextReaderRead")
        && LOAD(xml, next, l, "xmlTextReaderNext")
        && LOAD(xml, node_type, l, "xmlTextReaderNodeType")
        && LOAD(xml, name, l, "xmlTextReaderConstName")
        && LOAD(xml, local_name, l, "xmlTextReaderConstLocalName")
        && LOAD(xml, value, l, "xmlTextReaderConstValue")
        && LOAD(xml, is_empty, l, "xmlTextReaderIsEmptyElement")
        && LOAD(xml, next_attribute, l, "xmlTextReaderMoveToNextAttribute")
        && LOAD(xml, to_element, l, "xmlTextReaderMoveToElement")
        && LOAD(xml, set_errors, l, "xmlTextReaderSetStructuredErrorHandler")
        && LOAD(xml, free, l, "xmlFreeTextReader");
    /* Once, before any thread parses (libxml2's rule for threaded use). */
    if (xml_ok) xml.init();
}

int imago_xml_available(void) {
    pthread_once(&xml_once, xml_load);
    return xml_ok;
}

struct imago_xml {
    xmlTextReader *reader;
    char error[256];
    int error_line;
};

static void keep_error(void *user, void *error) {
    imago_xml *x = user;
    const xmlErrorPrefix *e = error;
    /* The first error says the most; libxml2 may report more after it. */
    /* Warnings (level 1) do not stop the document; errors (2) and fatal errors (3) do. */
    if (x->error[0] || !e || e->level < 2) return;
    snprintf(x->error, sizeof x->error, "%s", e->message ? e->message : "not well-formed");
    size_t n = strlen(x->error);
    while (n > 0 && (x->error[n - 1] == '\n' || x->error[n - 1] == ' ')) x->error[--n] = 0;
    x->error_line = e->line;
}

imago_xml *imago_xml_open(const uint8_t *data, size_t length) {
    if (!imago_xml_available() || length > INT_MAX) return NULL;
    imago_xml *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    /* No base URL: relative references resolve to nothing, and NONET keeps the network out. */
    x->reader = xml.for_memory((const char *)data, (int)length, NULL, "UTF-8", READER_OPTIONS);
    if (!x->reader) {
        free(x);
        return NULL;
    }
    xml.set_errors(x->reader, keep_error, x);
    return x;
}

int imago_xml_read(imago_xml *x, int skip_children) {
    int r = skip_children ? xml.next(x->reader) : xml.read(x->reader);
    if (r > 0 && x->error[0]) return -1;
    return r < 0 ? -1 : r;
}

int imago_xml_node_type(imago_xml *x) { return xml.node_type(x->reader); }
const char *imago_xml_name(imago_xml *x) { return (const char *)xml.name(x->reader); }
const char *imago_xml_local_name(imago_xml *x) { return (const char *)xml.local_name(x->reader); }
const char *imago_xml_value(imago_xml *x) { return (const char *)xml.value(x->reader); }
int imago_xml_is_empty(imago_xml *x) { return xml.is_empty(x->reader) == 1; }
int imago_xml_next_attribute(imago_xml *x) { return xml.next_attribute(x->reader) == 1; }
void imago_xml_to_element(imago_xml *x) { xml.to_element(x->reader); }

const char *imago_xml_error(imago_xml *x, int *line) {
    if (line) *line = x->error_line;
    return x->error[0] ? x->error : NULL;
}

void imago_xml_close(imago_xml *x) {
    if (!x) return;
    xml.free(x->reader);
    free(x);
}
