// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#include <webp/mux.h>
