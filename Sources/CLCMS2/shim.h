// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <lcms2.h>

/* lcms2's pixel-type macros are expressions Swift cannot import; name the few Imago uses. */
static const cmsUInt32Number IMAGO_TYPE_BGRA_8 = TYPE_BGRA_8;
static const cmsUInt32Number IMAGO_TYPE_RGBA_8 = TYPE_RGBA_8;
static const cmsUInt32Number IMAGO_TYPE_ARGB_8 = TYPE_ARGB_8;
static const cmsUInt32Number IMAGO_TYPE_GRAY_8 = TYPE_GRAY_8;
static const cmsUInt32Number IMAGO_TYPE_RGB_8 = TYPE_RGB_8;
static const cmsUInt32Number IMAGO_TYPE_CMYK_8 = TYPE_CMYK_8;
static const cmsUInt32Number IMAGO_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;
