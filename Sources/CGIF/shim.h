// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <gif_lib.h>
