// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_SERVER_START_H
#define IMAGO_SERVER_START_H

/* The malloc settings the start-up hook reads, with their defaults and bounds: the one place
   they are written. imago-server's settings (ProcessSettings.swift) take the same from here. */
#define IMAGO_MALLOC_ARENAS_NAME "IMAGO_MALLOC_ARENAS"
#define IMAGO_MALLOC_ARENAS_DEFAULT 2
#define IMAGO_MALLOC_ARENAS_MAX 4096
#define IMAGO_MALLOC_MMAP_THRESHOLD_NAME "IMAGO_MALLOC_MMAP_THRESHOLD"
#define IMAGO_MALLOC_MMAP_THRESHOLD_DEFAULT 33554432
#define IMAGO_MALLOC_MMAP_THRESHOLD_MIN 4096
#define IMAGO_MALLOC_MMAP_THRESHOLD_MAX 33554432

/// What the start-up hook of imago-server did with glibc's malloc, before main ran:
/// the arena cap it set (0: none, glibc's default), or -1 where the C library is not glibc.
int imago_server_start_arenas(void);

#endif
