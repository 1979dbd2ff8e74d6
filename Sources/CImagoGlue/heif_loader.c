// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include "lazy_stub.h"
#include <libheif/heif.h>

/* libheif is loaded when first used, not at start-up. Linked directly, it and its codecs
   (x265, aom, dav1d, libde265) cost every process about 4 MB of memory before it decodes
   anything, a third of the tool's start-up. These definitions stand in for libheif's own: each
   resolves the real function once, with dlopen, and answers "unsupported" when libheif is absent. */

static void *heif_library;
static pthread_once_t heif_once = PTHREAD_ONCE_INIT;

static void heif_load(void) {
    heif_library = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
}

static void *heif_symbol(const char *name) {
    pthread_once(&heif_once, heif_load);
    return heif_library ? dlsym(heif_library, name) : NULL;
}

static struct heif_error heif_missing(void) {
    struct heif_error e = { heif_error_Unsupported_feature, heif_suberror_Unspecified, "libheif (libheif1) is not installed" };
    return e;
}

#define STUB(ret, name, params, args, missing) IMAGO_STUB(heif_symbol, ret, name, params, args, missing)
#define VSTUB(name, params, args) IMAGO_VSTUB(heif_symbol, name, params, args)

STUB(struct heif_error, heif_init, (struct heif_init_params *p), (p), return heif_missing())
STUB(int, heif_have_decoder_for_format, (enum heif_compression_format f), (f), return 0)
STUB(int, heif_have_encoder_for_format, (enum heif_compression_format f), (f), return 0)
STUB(struct heif_context *, heif_context_alloc, (void), (), return NULL)
VSTUB(heif_context_free, (struct heif_context *c), (c))
VSTUB(heif_context_set_max_decoding_threads, (struct heif_context *c, int max_threads), (c, max_threads))
STUB(struct heif_error, heif_context_read_from_memory_without_copy,
     (struct heif_context *c, const void *m, size_t s, const struct heif_reading_options *o), (c, m, s, o), return heif_missing())
STUB(struct heif_error, heif_context_get_primary_image_handle, (struct heif_context *c, struct heif_image_handle **h), (c, h),
     return heif_missing())
VSTUB(heif_image_handle_release, (const struct heif_image_handle *h), (h))
STUB(int, heif_image_handle_get_width, (const struct heif_image_handle *h), (h), return 0)
STUB(int, heif_image_handle_get_height, (const struct heif_image_handle *h), (h), return 0)
STUB(int, heif_image_handle_has_alpha_channel, (const struct heif_image_handle *h), (h), return 0)
STUB(int, heif_image_handle_get_luma_bits_per_pixel, (const struct heif_image_handle *h), (h), return 0)
STUB(enum heif_color_profile_type, heif_image_handle_get_color_profile_type, (const struct heif_image_handle *h), (h),
     return heif_color_profile_type_not_present)
STUB(size_t, heif_image_handle_get_raw_color_profile_size, (const struct heif_image_handle *h), (h), return 0)
STUB(struct heif_error, heif_image_handle_get_raw_color_profile, (const struct heif_image_handle *h, void *d), (h, d),
     return heif_missing())
STUB(int, heif_image_handle_get_list_of_metadata_block_IDs,
     (const struct heif_image_handle *h, const char *t, heif_item_id *ids, int n), (h, t, ids, n), return 0)
STUB(size_t, heif_image_handle_get_metadata_size, (const struct heif_image_handle *h, heif_item_id id), (h, id), return 0)
STUB(struct heif_error, heif_image_handle_get_metadata, (const struct heif_image_handle *h, heif_item_id id, void *d), (h, id, d),
     return heif_missing())
STUB(int, heif_image_handle_get_number_of_thumbnails, (const struct heif_image_handle *h), (h), return 0)
STUB(int, heif_image_handle_get_list_of_thumbnail_IDs, (const struct heif_image_handle *h, heif_item_id *ids, int n), (h, ids, n),
     return 0)
STUB(struct heif_error, heif_image_handle_get_thumbnail,
     (const struct heif_image_handle *h, heif_item_id id, struct heif_image_handle **t), (h, id, t), return heif_missing())
STUB(struct heif_error, heif_decode_image,
     (const struct heif_image_handle *h, struct heif_image **i, enum heif_colorspace cs, enum heif_chroma ch,
      const struct heif_decoding_options *o), (h, i, cs, ch, o), return heif_missing())
VSTUB(heif_image_release, (const struct heif_image *i), (i))
STUB(int, heif_image_get_width, (const struct heif_image *i, enum heif_channel c), (i, c), return 0)
STUB(int, heif_image_get_height, (const struct heif_image *i, enum heif_channel c), (i, c), return 0)
STUB(const uint8_t *, heif_image_get_plane_readonly, (const struct heif_image *i, enum heif_channel c, int *s), (i, c, s),
     return NULL)
STUB(uint8_t *, heif_image_get_plane, (struct heif_image *i, enum heif_channel c, int *s), (i, c, s), return NULL)
STUB(struct heif_error, heif_context_get_encoder_for_format,
     (struct heif_context *c, enum heif_compression_format f, struct heif_encoder **e), (c, f, e), return heif_missing())
VSTUB(heif_encoder_release, (struct heif_encoder *e), (e))
STUB(struct heif_error, heif_encoder_set_lossless, (struct heif_encoder *e, int v), (e, v), return heif_missing())
STUB(struct heif_error, heif_encoder_set_lossy_quality, (struct heif_encoder *e, int q), (e, q), return heif_missing())
STUB(struct heif_error, heif_image_create,
     (int w, int h, enum heif_colorspace cs, enum heif_chroma ch, struct heif_image **i), (w, h, cs, ch, i), return heif_missing())
STUB(struct heif_error, heif_image_add_plane, (struct heif_image *i, enum heif_channel c, int w, int h, int b), (i, c, w, h, b),
     return heif_missing())
STUB(struct heif_error, heif_image_set_raw_color_profile, (struct heif_image *i, const char *t, const void *d, const size_t s),
     (i, t, d, s), return heif_missing())
STUB(struct heif_error, heif_context_encode_image,
     (struct heif_context *c, const struct heif_image *i, struct heif_encoder *e, const struct heif_encoding_options *o,
      struct heif_image_handle **h), (c, i, e, o, h), return heif_missing())
STUB(struct heif_error, heif_context_encode_thumbnail,
     (struct heif_context *c, const struct heif_image *i, const struct heif_image_handle *m, struct heif_encoder *e,
      const struct heif_encoding_options *o, int b, struct heif_image_handle **t), (c, i, m, e, o, b, t), return heif_missing())
STUB(struct heif_error, heif_context_write, (struct heif_context *c, struct heif_writer *w, void *u), (c, w, u),
     return heif_missing())

/* HDR: the nclx colour and the content light level (HEIFCoder+HDR.swift); the nclx and option
   setters write the HDR HEIC files the tests decode. */
STUB(struct heif_error, heif_image_handle_get_nclx_color_profile,
     (const struct heif_image_handle *h, struct heif_color_profile_nclx **n), (h, n), return heif_missing())
STUB(struct heif_color_profile_nclx *, heif_nclx_color_profile_alloc, (void), (), return NULL)
VSTUB(heif_nclx_color_profile_free, (struct heif_color_profile_nclx *n), (n))
STUB(struct heif_error, heif_nclx_color_profile_set_color_primaries, (struct heif_color_profile_nclx *n, uint16_t v), (n, v),
     return heif_missing())
STUB(struct heif_error, heif_nclx_color_profile_set_transfer_characteristics, (struct heif_color_profile_nclx *n, uint16_t v),
     (n, v), return heif_missing())
STUB(struct heif_error, heif_nclx_color_profile_set_matrix_coefficients, (struct heif_color_profile_nclx *n, uint16_t v), (n, v),
     return heif_missing())
STUB(struct heif_error, heif_image_set_nclx_color_profile, (struct heif_image *i, const struct heif_color_profile_nclx *n), (i, n),
     return heif_missing())
STUB(int, heif_image_get_bits_per_pixel_range, (const struct heif_image *i, enum heif_channel c), (i, c), return -1)
STUB(int, heif_image_has_content_light_level, (const struct heif_image *i), (i), return 0)
VSTUB(heif_image_get_content_light_level, (const struct heif_image *i, struct heif_content_light_level *l), (i, l))
VSTUB(heif_image_set_content_light_level, (const struct heif_image *i, const struct heif_content_light_level *l), (i, l))
STUB(struct heif_error, heif_encoder_set_parameter_string, (struct heif_encoder *e, const char *n, const char *v), (e, n, v),
     return heif_missing())
STUB(struct heif_encoding_options *, heif_encoding_options_alloc, (void), (), return NULL)
VSTUB(heif_encoding_options_free, (struct heif_encoding_options *o), (o))
STUB(struct heif_error, heif_context_write_to_file, (struct heif_context *c, const char *f), (c, f), return heif_missing())
