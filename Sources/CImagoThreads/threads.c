// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#define _GNU_SOURCE
#include "imago_threads.h"

#if defined(__linux__)
#include <sched.h>

static __thread cpu_set_t saved_set;
static __thread int saved = 0;

int imago_threads_allowed_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

int imago_threads_allowed_cpu(int index) {
    if (index < 0) return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    int seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set)) continue;
        if (seen == index) return cpu;
        seen++;
    }
    return -1;
}

int imago_threads_pin(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    cpu_set_t current;
    CPU_ZERO(&current);
    if (sched_getaffinity(0, sizeof current, &current) != 0) return -1;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) return -1;
    /* A second pin keeps the set from before the first. */
    if (!saved) {
        saved_set = current;
        saved = 1;
    }
    return 0;
}

int imago_threads_unpin(void) {
    if (!saved) return 0;
    if (sched_setaffinity(0, sizeof saved_set, &saved_set) != 0) return -1;
    saved = 0;
    return 0;
}

int imago_threads_current_cpu(void) { return sched_getcpu(); }

#else

int imago_threads_allowed_cpu_count(void) { return 0; }
int imago_threads_allowed_cpu(int index) { (void)index; return -1; }
int imago_threads_pin(int cpu) { (void)cpu; return -1; }
int imago_threads_unpin(void) { return 0; }
int imago_threads_current_cpu(void) { return -1; }

#endif
