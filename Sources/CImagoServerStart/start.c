// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include "imago_server_start.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc, which the test below needs */

/* glibc fixes its number of malloc arenas when a second thread first contends for one, and
   mallopt(M_ARENA_MAX) is ignored from then on. By the time Swift code runs, the runtime and
   the event loops have threads, so imago-server's arena cap must be set earlier: here, in a
   constructor of the executable alone, which runs before main and before any thread exists.
   It reads IMAGO_MALLOC_ARENAS and IMAGO_MALLOC_MMAP_THRESHOLD (names, defaults and bounds in
   imago_server_start.h, which the Swift settings read too); values it cannot use are left for
   the Swift settings to report. The library never
   links this file, so processes embedding Imago keep their own malloc settings. */

#if defined(__GLIBC__)
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

static int arenas_set = 0;

static long setting(const char *name, long fallback, long low, long high) {
    const char *text = getenv(name);
    if (text == NULL || *text == '\0') return fallback;
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < low || value > high) return -1;
    return value;
}

__attribute__((constructor)) static void imago_server_start(void) {
    long arenas = setting(IMAGO_MALLOC_ARENAS_NAME, IMAGO_MALLOC_ARENAS_DEFAULT, 0, IMAGO_MALLOC_ARENAS_MAX);
    if (arenas > 0 && mallopt(M_ARENA_MAX, (int)arenas) == 1) arenas_set = (int)arenas;
    long threshold = setting(IMAGO_MALLOC_MMAP_THRESHOLD_NAME, IMAGO_MALLOC_MMAP_THRESHOLD_DEFAULT, 0, IMAGO_MALLOC_MMAP_THRESHOLD_MAX);
    if (threshold >= IMAGO_MALLOC_MMAP_THRESHOLD_MIN) mallopt(M_MMAP_THRESHOLD, (int)threshold);
}

int imago_server_start_arenas(void) { return arenas_set; }

#else

int imago_server_start_arenas(void) { return -1; }

#endif
