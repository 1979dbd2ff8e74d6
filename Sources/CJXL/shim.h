// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
