// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include "imago_glue.h"

/* libimagequant parallelises with OpenMP (libgomp). Its parallel regions on small frames cost
   more than they save: libgomp wakes its team and then spins waiting for work, which on a GIF of
   320x240 frames burns a third of the process's CPU. omp_set_num_threads sets the calling
   thread's team size, so the GIF encoder picks per frame size; libgomp is reached through the
   process's symbols (libimagequant brought it in), so nothing here links it. */

static void (*set_num_threads)(int);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve(void) {
    set_num_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
}

void imago_openmp_set_threads(int threads) {
    pthread_once(&once, resolve);
    if (set_num_threads && threads > 0) set_num_threads(threads);
}
