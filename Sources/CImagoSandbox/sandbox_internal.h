// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_SANDBOX_INTERNAL_H
#define IMAGO_SANDBOX_INTERNAL_H

#include <stddef.h>

struct imago_sandbox_options;

// What sandbox.c and seccomp.c share, hidden from the library's symbols.
#define IMAGO_HIDDEN __attribute__((visibility("hidden")))

// Appends one formatted line to `report` (at most `cap` bytes with its NUL, cut short when full).
IMAGO_HIDDEN void imago_sandbox_note(char *report, size_t cap, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

// "EPERM" for EPERM, and so on for the errors the sandbox's steps meet; "errno N" for the others.
IMAGO_HIDDEN const char *imago_sandbox_errno_name(int error);

// A seccomp filter built but not yet loaded.
struct imago_seccomp;

// Opens libseccomp.so.2 and builds the allow-list for this process (the tgkill rule names its pid). NULL,
// with a line in `report`, when that cannot be done. Called before Landlock hides the library's file.
IMAGO_HIDDEN struct imago_seccomp *imago_seccomp_prepare(char *report, size_t cap);

// Loads the filter into the kernel and frees it (and the library) whether or not that worked. Returns 0
// when the filter is in force.
IMAGO_HIDDEN int imago_seccomp_load(struct imago_seccomp *filter, char *report, size_t cap);

// Gives the calling process, in the user and mount namespaces it has just made, a file system of
// `options->read_paths` alone (its user `uid` and group `gid` mapped onto themselves, a tmpfs root, each path
// bound read-only onto itself, the host's root detached), then gives up the namespace's capabilities. Returns
// 0, or -errno with a line in `report`.
IMAGO_HIDDEN int imago_sandbox_filesystem(const struct imago_sandbox_options *options, unsigned uid, unsigned gid, char *report,
                                          size_t cap);

#endif
