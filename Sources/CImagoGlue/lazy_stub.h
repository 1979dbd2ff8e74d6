// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_LAZY_STUB_H
#define IMAGO_LAZY_STUB_H

#include <pthread.h>

/* Stand-ins for a library loaded on first use (heif_loader.c, jxl_loader.c, avif_loader.c):
   each defines the library's function `name`, which resolves the real one once through
   `lookup` (a dlsym over the dlopen'd library) and runs `missing` when it is absent. */

#define IMAGO_STUB(lookup, ret, name, params, args, missing) \
    static ret (*name##_fn) params; \
    static pthread_once_t name##_once = PTHREAD_ONCE_INIT; \
    static void name##_resolve(void) { name##_fn = (ret (*) params)lookup(#name); } \
    ret name params { \
        pthread_once(&name##_once, name##_resolve); \
        if (!name##_fn) { missing; } \
        return name##_fn args; \
    }

#define IMAGO_VSTUB(lookup, name, params, args) \
    static void (*name##_fn) params; \
    static pthread_once_t name##_once = PTHREAD_ONCE_INIT; \
    static void name##_resolve(void) { name##_fn = (void (*) params)lookup(#name); } \
    void name params { \
        pthread_once(&name##_once, name##_resolve); \
        if (name##_fn) name##_fn args; \
    }

#endif
