// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include "lazy_stub.h"
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>

/* libjxl is loaded when first used, not at start-up, as libheif is (heif_loader.c): linked
   directly it would cost every process its pages (and libhwy's, libbrotli's) before any JPEG
   XL is met. These definitions stand in for libjxl's own: each resolves the real function once
   with dlopen, and answers as libjxl does on failure (NULL, JXL_DEC_ERROR, JXL_ENC_ERROR) when
   the library is absent. The thread runner comes from libjxl_threads, loaded the same way. */

static void *jxl_library;
static void *jxl_threads_library;
static pthread_once_t jxl_once = PTHREAD_ONCE_INIT;

static void jxl_load(void) {
    jxl_library = dlopen("libjxl.so.0.7", RTLD_NOW | RTLD_LOCAL);
    if (jxl_library) jxl_threads_library = dlopen("libjxl_threads.so.0.7", RTLD_NOW | RTLD_LOCAL);
}

static void *jxl_symbol(const char *name) {
    pthread_once(&jxl_once, jxl_load);
    return jxl_library ? dlsym(jxl_library, name) : NULL;
}

static void *jxl_threads_symbol(const char *name) {
    pthread_once(&jxl_once, jxl_load);
    return jxl_threads_library ? dlsym(jxl_threads_library, name) : NULL;
}

int imago_jxl_available(void) {
    pthread_once(&jxl_once, jxl_load);
    return jxl_library != NULL;
}

#define STUB_FROM IMAGO_STUB
#define VSTUB_FROM IMAGO_VSTUB

#define STUB(ret, name, params, args, missing) STUB_FROM(jxl_symbol, ret, name, params, args, missing)
#define VSTUB(name, params, args) VSTUB_FROM(jxl_symbol, name, params, args)
#define DEC_ERROR return JXL_DEC_ERROR
#define ENC_ERROR return JXL_ENC_ERROR

/* Decoding. */
STUB(uint32_t, JxlDecoderVersion, (void), (), return 0)
STUB(JxlDecoder *, JxlDecoderCreate, (const JxlMemoryManager *m), (m), return NULL)
VSTUB(JxlDecoderDestroy, (JxlDecoder *d), (d))
VSTUB(JxlDecoderRewind, (JxlDecoder *d), (d))
VSTUB(JxlDecoderSkipFrames, (JxlDecoder *d, size_t n), (d, n))
STUB(JxlDecoderStatus, JxlDecoderSubscribeEvents, (JxlDecoder *d, int e), (d, e), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetKeepOrientation, (JxlDecoder *d, JXL_BOOL k), (d, k), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetUnpremultiplyAlpha, (JxlDecoder *d, JXL_BOOL u), (d, u), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetCoalescing, (JxlDecoder *d, JXL_BOOL c), (d, c), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetParallelRunner, (JxlDecoder *d, JxlParallelRunner r, void *o), (d, r, o), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetProgressiveDetail, (JxlDecoder *d, JxlProgressiveDetail p), (d, p), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetDecompressBoxes, (JxlDecoder *d, JXL_BOOL b), (d, b), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetInput, (JxlDecoder *d, const uint8_t *b, size_t s), (d, b, s), DEC_ERROR)
VSTUB(JxlDecoderCloseInput, (JxlDecoder *d), (d))
STUB(size_t, JxlDecoderReleaseInput, (JxlDecoder *d), (d), return 0)
STUB(JxlDecoderStatus, JxlDecoderProcessInput, (JxlDecoder *d), (d), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderGetBasicInfo, (const JxlDecoder *d, JxlBasicInfo *i), (d, i), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderGetColorAsEncodedProfile,
     (const JxlDecoder *d, const JxlPixelFormat *f, JxlColorProfileTarget t, JxlColorEncoding *c), (d, f, t, c), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderGetICCProfileSize,
     (const JxlDecoder *d, const JxlPixelFormat *f, JxlColorProfileTarget t, size_t *s), (d, f, t, s), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderGetColorAsICCProfile,
     (const JxlDecoder *d, const JxlPixelFormat *f, JxlColorProfileTarget t, uint8_t *p, size_t s), (d, f, t, p, s), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetPreferredColorProfile, (JxlDecoder *d, const JxlColorEncoding *c), (d, c), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetDesiredIntensityTarget, (JxlDecoder *d, float t), (d, t), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderImageOutBufferSize, (const JxlDecoder *d, const JxlPixelFormat *f, size_t *s), (d, f, s), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetImageOutBuffer, (JxlDecoder *d, const JxlPixelFormat *f, void *b, size_t s), (d, f, b, s),
     DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderGetFrameHeader, (const JxlDecoder *d, JxlFrameHeader *h), (d, h), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderFlushImage, (JxlDecoder *d), (d), DEC_ERROR)
STUB(JxlDecoderStatus, JxlDecoderSetJPEGBuffer, (JxlDecoder *d, uint8_t *b, size_t s), (d, b, s), DEC_ERROR)
STUB(size_t, JxlDecoderReleaseJPEGBuffer, (JxlDecoder *d), (d), return 0)
STUB(JxlDecoderStatus, JxlDecoderSetBoxBuffer, (JxlDecoder *d, uint8_t *b, size_t s), (d, b, s), DEC_ERROR)
STUB(size_t, JxlDecoderReleaseBoxBuffer, (JxlDecoder *d), (d), return 0)
STUB(JxlDecoderStatus, JxlDecoderGetBoxType, (JxlDecoder *d, JxlBoxType t, JXL_BOOL c), (d, t, c), DEC_ERROR)

/* Encoding. */
STUB(JxlEncoder *, JxlEncoderCreate, (const JxlMemoryManager *m), (m), return NULL)
VSTUB(JxlEncoderDestroy, (JxlEncoder *e), (e))
STUB(JxlEncoderFrameSettings *, JxlEncoderFrameSettingsCreate, (JxlEncoder *e, const JxlEncoderFrameSettings *s), (e, s),
     return NULL)
VSTUB(JxlEncoderInitBasicInfo, (JxlBasicInfo *i), (i))
STUB(JxlEncoderStatus, JxlEncoderSetBasicInfo, (JxlEncoder *e, const JxlBasicInfo *i), (e, i), ENC_ERROR)
VSTUB(JxlColorEncodingSetToSRGB, (JxlColorEncoding *c, JXL_BOOL g), (c, g))
STUB(JxlEncoderStatus, JxlEncoderSetColorEncoding, (JxlEncoder *e, const JxlColorEncoding *c), (e, c), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderSetICCProfile, (JxlEncoder *e, const uint8_t *p, size_t s), (e, p, s), ENC_ERROR)
VSTUB(JxlEncoderInitFrameHeader, (JxlFrameHeader *h), (h))
STUB(JxlEncoderStatus, JxlEncoderSetFrameHeader, (JxlEncoderFrameSettings *s, const JxlFrameHeader *h), (s, h), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderSetFrameDistance, (JxlEncoderFrameSettings *s, float d), (s, d), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderSetFrameLossless, (JxlEncoderFrameSettings *s, JXL_BOOL l), (s, l), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderFrameSettingsSetOption,
     (JxlEncoderFrameSettings *s, JxlEncoderFrameSettingId o, int64_t v), (s, o, v), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderAddImageFrame,
     (const JxlEncoderFrameSettings *s, const JxlPixelFormat *f, const void *b, size_t n), (s, f, b, n), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderAddJPEGFrame, (const JxlEncoderFrameSettings *s, const uint8_t *b, size_t n), (s, b, n), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderStoreJPEGMetadata, (JxlEncoder *e, JXL_BOOL s), (e, s), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderUseContainer, (JxlEncoder *e, JXL_BOOL c), (e, c), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderUseBoxes, (JxlEncoder *e), (e), ENC_ERROR)
STUB(JxlEncoderStatus, JxlEncoderAddBox, (JxlEncoder *e, const JxlBoxType t, const uint8_t *c, size_t s, JXL_BOOL z), (e, t, c, s, z),
     ENC_ERROR)
VSTUB(JxlEncoderCloseBoxes, (JxlEncoder *e), (e))
VSTUB(JxlEncoderCloseFrames, (JxlEncoder *e), (e))
VSTUB(JxlEncoderCloseInput, (JxlEncoder *e), (e))
STUB(JxlEncoderStatus, JxlEncoderProcessOutput, (JxlEncoder *e, uint8_t **o, size_t *a), (e, o, a), ENC_ERROR)
STUB(JxlEncoderError, JxlEncoderGetError, (JxlEncoder *e), (e), return JXL_ENC_ERR_GENERIC)
STUB(JxlEncoderStatus, JxlEncoderSetParallelRunner, (JxlEncoder *e, JxlParallelRunner r, void *o), (e, r, o), ENC_ERROR)

/* The thread runner (libjxl_threads). Without it the coders run single-threaded. */
STUB_FROM(jxl_threads_symbol, void *, JxlThreadParallelRunnerCreate, (const JxlMemoryManager *m, size_t n), (m, n), return NULL)
VSTUB_FROM(jxl_threads_symbol, JxlThreadParallelRunnerDestroy, (void *r), (r))
STUB_FROM(jxl_threads_symbol, JxlParallelRetCode, JxlThreadParallelRunner,
          (void *r, void *o, JxlParallelRunInit i, JxlParallelRunFunction f, uint32_t s, uint32_t e), (r, o, i, f, s, e), return -1)
