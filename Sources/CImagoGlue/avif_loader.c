// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include "lazy_stub.h"
#include <avif/avif.h>

/* libavif is loaded when first used, not at start-up, as libheif and libjxl are: linked
   directly, it and its codecs (dav1d, aom) would cost every process their pages before any AVIF
   is met. These definitions stand in for libavif's own: each resolves the real function once,
   with dlopen, and answers as libavif does on failure when the library is absent. */

static void *avif_library;
static pthread_once_t avif_once = PTHREAD_ONCE_INIT;

static void avif_load(void) {
    avif_library = dlopen("libavif.so.15", RTLD_NOW | RTLD_LOCAL);
}

static void *avif_symbol(const char *name) {
    pthread_once(&avif_once, avif_load);
    return avif_library ? dlsym(avif_library, name) : NULL;
}

int imago_avif_available(void) {
    pthread_once(&avif_once, avif_load);
    return avif_library != NULL;
}

#define STUB(ret, name, params, args, missing) IMAGO_STUB(avif_symbol, ret, name, params, args, missing)
#define VSTUB(name, params, args) IMAGO_VSTUB(avif_symbol, name, params, args)

STUB(const char *, avifVersion, (void), (), return "")
STUB(const char *, avifCodecName, (avifCodecChoice c, avifCodecFlags f), (c, f), return NULL)
STUB(const char *, avifResultToString, (avifResult r), (r), return "libavif (libavif15) is not installed")
STUB(avifDecoder *, avifDecoderCreate, (void), (), return NULL)
VSTUB(avifDecoderDestroy, (avifDecoder *d), (d))
STUB(avifResult, avifDecoderSetIOMemory, (avifDecoder *d, const uint8_t *m, size_t s), (d, m, s), return AVIF_RESULT_NO_CODEC_AVAILABLE)
STUB(avifResult, avifDecoderParse, (avifDecoder *d), (d), return AVIF_RESULT_NO_CODEC_AVAILABLE)
STUB(avifResult, avifDecoderNextImage, (avifDecoder *d), (d), return AVIF_RESULT_NO_CODEC_AVAILABLE)
STUB(avifResult, avifDecoderNthImage, (avifDecoder *d, uint32_t i), (d, i), return AVIF_RESULT_NO_CODEC_AVAILABLE)
STUB(avifResult, avifDecoderNthImageTiming, (const avifDecoder *d, uint32_t i, avifImageTiming *t), (d, i, t),
     return AVIF_RESULT_NO_CODEC_AVAILABLE)
VSTUB(avifRGBImageSetDefaults, (avifRGBImage *r, const avifImage *i), (r, i))
STUB(avifResult, avifImageYUVToRGB, (const avifImage *i, avifRGBImage *r), (i, r), return AVIF_RESULT_NO_CODEC_AVAILABLE)
STUB(avifBool, avifCropRectConvertCleanApertureBox,
     (avifCropRect *r, const avifCleanApertureBox *c, uint32_t w, uint32_t h, avifPixelFormat f, avifDiagnostics *d),
     (r, c, w, h, f, d), return AVIF_FALSE)

/* Encoding. */
STUB(avifEncoder *, avifEncoderCreate, (void), (), return NULL)
VSTUB(avifEncoderDestroy, (avifEncoder *e), (e))
STUB(avifResult, avifEncoderAddImage, (avifEncoder *e, const avifImage *i, uint64_t d, avifAddImageFlags f), (e, i, d, f),
     return AVIF_RESULT_NO_CODEC_AVAILABLE)
STUB(avifResult, avifEncoderFinish, (avifEncoder *e, avifRWData *o), (e, o), return AVIF_RESULT_NO_CODEC_AVAILABLE)
STUB(avifImage *, avifImageCreate, (uint32_t w, uint32_t h, uint32_t d, avifPixelFormat f), (w, h, d, f), return NULL)
VSTUB(avifImageDestroy, (avifImage *i), (i))
STUB(avifResult, avifImageRGBToYUV, (avifImage *i, const avifRGBImage *r), (i, r), return AVIF_RESULT_NO_CODEC_AVAILABLE)
VSTUB(avifImageSetProfileICC, (avifImage *i, const uint8_t *p, size_t s), (i, p, s))
VSTUB(avifImageSetMetadataExif, (avifImage *i, const uint8_t *p, size_t s), (i, p, s))
VSTUB(avifRWDataFree, (avifRWData *r), (r))
