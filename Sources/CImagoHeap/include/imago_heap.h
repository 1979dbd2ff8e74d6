// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_HEAP_H
#define IMAGO_HEAP_H

/// glibc's malloc tuning, which Swift's Glibc module does not import (<malloc.h>).
/// Each returns 1 when the C library did what was asked, 0 when not, and -1 where the C
/// library is not glibc.

/// mallopt(M_ARENA_MAX, count).
int imago_heap_limit_arenas(int count);

/// mallopt(M_MMAP_THRESHOLD, bytes): allocations of at least `bytes` get their own mapping,
/// returned to the system when freed (this also turns off glibc's rising dynamic threshold).
int imago_heap_mmap_threshold(int bytes);

/// malloc_trim(0): 1 when memory was released.
int imago_heap_trim(void);

#endif
