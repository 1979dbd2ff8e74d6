// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <libimagequant.h>
