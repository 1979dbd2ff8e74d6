// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
