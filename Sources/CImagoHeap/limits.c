// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include "imago_limits.h"

#include <sys/resource.h>

long imago_open_files_limit(int raise_to_hard) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if (raise_to_hard && limit.rlim_cur < limit.rlim_max) {
        struct rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > (rlim_t)0x7fffffff) return -1;
    return (long)limit.rlim_cur;
}
