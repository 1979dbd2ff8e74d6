// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_LIMITS_H
#define IMAGO_LIMITS_H

/* The process's limit of open files (RLIMIT_NOFILE's soft value), after raising it to the hard
   value when `raise_to_hard` is non-zero (as Go's runtime does at start). -1 when unknown or
   unlimited. */
long imago_open_files_limit(int raise_to_hard);

#endif
