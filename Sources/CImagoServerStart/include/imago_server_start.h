// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_SERVER_START_H
#define IMAGO_SERVER_START_H

/// What the start-up hook of imago-server did with glibc's malloc, before main ran:
/// the arena cap it set (0: none, glibc's default), or -1 where the C library is not glibc.
int imago_server_start_arenas(void);

#endif
