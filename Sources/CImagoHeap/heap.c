// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include "imago_heap.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc, which the test below needs */

#if defined(__GLIBC__)
#include <malloc.h>

int imago_heap_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int imago_heap_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int imago_heap_trim(void) { return malloc_trim(0); }

#else

int imago_heap_limit_arenas(int count) { (void)count; return -1; }

int imago_heap_mmap_threshold(int bytes) { (void)bytes; return -1; }

int imago_heap_trim(void) { return -1; }

#endif
