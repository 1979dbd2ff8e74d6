// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_THREADS_H
#define IMAGO_THREADS_H

/// CPU affinity for worker threads, which Swift's Glibc module does not import
/// (sched_setaffinity and cpu_set_t need _GNU_SOURCE). Where the system has no such call, the
/// counts are 0 and pinning returns -1.

/// The CPUs the calling thread may run on (at start-up, the process's set).
int imago_threads_allowed_cpu_count(void);

/// The `index`-th of those CPUs (0-based, in ascending order), or -1 past the last.
int imago_threads_allowed_cpu(int index);

/// Restricts the calling thread to `cpu`, remembering the set it had for
/// imago_threads_unpin. 0 on success, -1 when the CPU cannot be used (the thread is left as it was).
int imago_threads_pin(int cpu);

/// Gives the calling thread back the set it had before imago_threads_pin; nothing when it
/// was not pinned. 0 on success, -1 on failure.
int imago_threads_unpin(void);

/// The CPU the calling thread is running on now, or -1.
int imago_threads_current_cpu(void);

#endif
