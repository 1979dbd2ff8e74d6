// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/*
 * Imago's C glue: the one place libjpeg's and libpng's longjmp-based error handling lives.
 * Every function that can raise a library error runs it under its own setjmp and returns a
 * status code, so no longjmp ever crosses a Swift frame. Types from jpeglib.h and png.h are
 * only forward-declared here; Swift sees them through the CJPEG and CPNG modules.
 */
#ifndef IMAGO_GLUE_H
#define IMAGO_GLUE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes shared by every glue call. */
enum {
    IMAGO_OK = 0,          /* the step completed */
    IMAGO_SUSPENDED = 1,   /* more input is needed (progressive feeding only) */
    IMAGO_ERROR = -1       /* the library raised an error; see the *_message() call */
};

/* ---------------------------------------------------------------- libjpeg decoding */

struct jpeg_decompress_struct;
typedef struct imago_jpeg_decoder imago_jpeg_decoder;

/* Creates a decompressor that saves APP1 (EXIF) and APP2 (ICC) markers. NULL on allocation failure. */
imago_jpeg_decoder *imago_jpeg_decoder_create(void);
void imago_jpeg_decoder_destroy(imago_jpeg_decoder *d);
/* The decompressor, for reading header fields and setting output parameters between calls. */
struct jpeg_decompress_struct *imago_jpeg_decoder_cinfo(imago_jpeg_decoder *d);
/* Points the source at all bytes received so far. The memory must stay valid until the next call
   that reads input. When is_final is 0, running out of bytes suspends; when 1, it is truncation. */
void imago_jpeg_decoder_set_input(imago_jpeg_decoder *d, const uint8_t *data, size_t length, int is_final);
/* Pull mode instead of set_input: libjpeg asks `reader` for the next bytes whenever it has used
   the last, up to `capacity` at a time into a buffer the decoder owns, so the input is never held
   whole. The reader returns how many bytes it wrote, 0 at the end of the input (which then ends as
   a truncated stream, see hit_end), or -1 when it failed (the libjpeg call then fails with
   IMAGO_ERROR). Called once, before the header is read; IMAGO_ERROR if it cannot allocate. */
typedef long (*imago_jpeg_read_fn)(void *context, uint8_t *buffer, size_t capacity);
int imago_jpeg_decoder_set_reader(imago_jpeg_decoder *d, imago_jpeg_read_fn reader, void *context, size_t capacity);
/* Caps libjpeg's own working memory (progressive coefficient buffers and the like). */
void imago_jpeg_decoder_set_max_memory(imago_jpeg_decoder *d, long bytes);
/* Refuses more than max_scans scans (0: no limit). Default 500. */
void imago_jpeg_decoder_set_max_scans(imago_jpeg_decoder *d, int max_scans);
int imago_jpeg_read_header(imago_jpeg_decoder *d);
int imago_jpeg_start_decompress(imago_jpeg_decoder *d);
/* Reads scanlines into dst + output_scanline * stride until the output pass ends or input runs out.
   *rows_read receives how many rows this call produced. */
int imago_jpeg_read_rows(imago_jpeg_decoder *d, uint8_t *dst, size_t stride, uint32_t *rows_read);
/* Reads up to max_rows rows into dst (row i at dst + i * stride): OK when max_rows were read or the
   image is done, SUSPENDED when the input ran out first. */
int imago_jpeg_read_some_rows(imago_jpeg_decoder *d, uint8_t *dst, size_t stride, uint32_t max_rows, uint32_t *rows_read);
int imago_jpeg_finish_decompress(imago_jpeg_decoder *d);
/* Buffered-image mode (progressive display). consume_input stores libjpeg's return code in *result. */
int imago_jpeg_consume_input(imago_jpeg_decoder *d, int *result);
int imago_jpeg_start_output(imago_jpeg_decoder *d, int scan_number);
int imago_jpeg_finish_output(imago_jpeg_decoder *d);
/* Reassembles the ICC profile from APP2 markers. *profile is malloc'd (free with imago_free) or NULL. */
int imago_jpeg_read_icc_profile(imago_jpeg_decoder *d, uint8_t **profile, unsigned int *length);
/* Saved markers, in file order. Returns 0 when index is past the last one. */
int imago_jpeg_marker(imago_jpeg_decoder *d, int index, int *code, const uint8_t **data, unsigned int *length);
/* The library's message for the last error, and the first warning, as NUL-terminated strings. */
const char *imago_jpeg_decoder_message(imago_jpeg_decoder *d);
const char *imago_jpeg_decoder_warning(imago_jpeg_decoder *d);
int imago_jpeg_decoder_warning_count(imago_jpeg_decoder *d);
/* 1 when the decoder asked for bytes past the end of final input. */
int imago_jpeg_decoder_hit_end(imago_jpeg_decoder *d);

/* ---------------------------------------------------------------- libjpeg encoding */

typedef struct imago_jpeg_encode_params {
    const uint8_t *pixels;
    uint32_t width, height;
    size_t stride;
    int in_color_space;     /* a J_COLOR_SPACE value: JCS_RGB, JCS_GRAYSCALE, JCS_EXT_RGBX, ... */
    int components;         /* bytes per input pixel */
    int quality;            /* 1...100 */
    int progressive;        /* non-zero: progressive scans */
    int optimize_coding;    /* non-zero: optimized Huffman tables */
    int chroma_subsample;   /* non-zero: 4:2:0, zero: 4:4:4 */
    int quant_table;        /* 0: the JPEG standard's (Annex K); 1: N. Robidoux's, for luma and chroma */
    const uint8_t *icc; unsigned int icc_length;
    const uint8_t *exif; unsigned int exif_length;   /* TIFF block without the Exif\0\0 prefix */
} imago_jpeg_encode_params;

/* Row by row: start with the parameters (pixels and stride unused), write rows in any number of
   calls, finish into a malloc'd buffer (*out, free with imago_free). Each call returns IMAGO_OK or
   IMAGO_ERROR, with libjpeg's text in imago_jpeg_row_encoder_message. */
typedef struct imago_jpeg_row_encoder imago_jpeg_row_encoder;
imago_jpeg_row_encoder *imago_jpeg_row_encoder_create(void);
void imago_jpeg_row_encoder_destroy(imago_jpeg_row_encoder *e);
int imago_jpeg_row_encoder_start(imago_jpeg_row_encoder *e, const imago_jpeg_encode_params *p);
int imago_jpeg_row_encoder_write(imago_jpeg_row_encoder *e, const uint8_t *rows, size_t stride, uint32_t count);
int imago_jpeg_row_encoder_finish(imago_jpeg_row_encoder *e, uint8_t **out, size_t *out_length);
const char *imago_jpeg_row_encoder_message(imago_jpeg_row_encoder *e);

/* Encodes into a malloc'd buffer (*out, free with imago_free). message receives the error text. */
int imago_jpeg_encode(const imago_jpeg_encode_params *p, uint8_t **out, size_t *out_length,
                      char *message, size_t message_capacity);

/* ---------------------------------------------------------------- libpng decoding (push mode) */

typedef struct imago_png_decoder imago_png_decoder;

typedef struct imago_png_header {
    uint32_t width, height;
    int bit_depth, color_type, interlace, passes;
    int has_trns, has_srgb, has_gamma;
    double gamma;
    const uint8_t *icc; uint32_t icc_length;      /* valid while the decoder lives */
    const uint8_t *exif; uint32_t exif_length;
    const uint8_t *xmp; size_t xmp_length;        /* uncompressed iTXt "XML:com.adobe.xmp" */
} imago_png_header;

/* Creates a push decoder writing 8-bit, 4-channel rows into out (stride bytes apart).
   bgra: 1 for B,G,R,A byte order, 0 for R,G,B,A. apply_gamma: colour management is on: correct
   gAMA when no sRGB/iCCP, and leave rows straight when an iCCP profile is to be applied.
   max_width/max_height bound the IHDR libpng accepts. */
imago_png_decoder *imago_png_decoder_create(uint8_t *out, size_t stride, int bgra, int apply_gamma,
                                            uint32_t max_width, uint32_t max_height);
void imago_png_decoder_destroy(imago_png_decoder *d);
/* Feeds the next bytes (only bytes not fed before). */
int imago_png_feed(imago_png_decoder *d, const uint8_t *data, size_t length);
int imago_png_header_ready(imago_png_decoder *d);
int imago_png_get_header(imago_png_decoder *d, imago_png_header *h);
int imago_png_finished(imago_png_decoder *d);
/* Progress: current pass (0-based) and rows delivered in it. */
void imago_png_progress(imago_png_decoder *d, int *pass, uint32_t *rows_in_pass, uint32_t *highest_row);
const char *imago_png_decoder_message(imago_png_decoder *d);
/* Premultiply each completed row as it arrives (out must hold native ARGB32 words). Switched
   off automatically for interlaced images; the second call says whether it stayed on. */
void imago_png_decoder_premultiply_rows(imago_png_decoder *d, int enabled);
int imago_png_decoder_premultiplied_rows(imago_png_decoder *d);
/* Called with each finished row (after premultiplication) and its index; a non-zero return stops
   decoding with an error. Used with stride 0, so every row lands in the same one-row buffer and
   the caller streams the image without holding it. Only for non-interlaced images. */
typedef int (*imago_png_row_sink)(void *context, const uint8_t *row, uint32_t y);
void imago_png_decoder_set_row_sink(imago_png_decoder *d, imago_png_row_sink sink, void *context);

/* ---------------------------------------------------------------- libpng encoding */

typedef struct imago_png_encode_params {
    const uint8_t *pixels;
    uint32_t width, height;
    size_t stride;
    int color_type;         /* PNG_COLOR_TYPE_GRAY, _GRAY_ALPHA, _RGB, _RGB_ALPHA */
    int compression_level;  /* 0...9 */
    int interlace;          /* non-zero: Adam7 */
    const uint8_t *icc; uint32_t icc_length;
    const uint8_t *exif; uint32_t exif_length;
} imago_png_encode_params;

int imago_png_encode(const imago_png_encode_params *p, uint8_t **out, size_t *out_length,
                     char *message, size_t message_capacity);

/* Row by row, as the JPEG row encoder (no interlacing): start with the parameters (pixels and
   stride unused), write rows in the colour type's layout, finish into a malloc'd buffer. */
typedef struct imago_png_row_encoder imago_png_row_encoder;
imago_png_row_encoder *imago_png_row_encoder_create(void);
void imago_png_row_encoder_destroy(imago_png_row_encoder *e);
int imago_png_row_encoder_start(imago_png_row_encoder *e, const imago_png_encode_params *p);
int imago_png_row_encoder_write(imago_png_row_encoder *e, const uint8_t *rows, size_t stride, uint32_t count);
int imago_png_row_encoder_finish(imago_png_row_encoder *e, uint8_t **out, size_t *out_length);
const char *imago_png_row_encoder_message(imago_png_row_encoder *e);

void imago_free(void *p);

/* ---------------------------------------------------------------- colour conversion */

/* 1.0 in the matrix/TRC tables' fixed point (1.14, as lcms2's own 8-bit optimisation). */
#define IMAGO_MATSHAPER_ONE 16384

/* An 8-bit matrix/TRC conversion: each channel through its input curve to linear light (1.14),
   the 3x3 matrix (1.14, row-major, each coefficient below 2 in magnitude), clamped to [0, 1],
   and through the output curve back to 8 bits. */
typedef struct imago_matshaper8 {
    uint16_t input[3][256];
    int32_t matrix[9];
    uint8_t output[IMAGO_MATSHAPER_ONE + 1];
} imago_matshaper8;

/* A zeroed table (NULL when out of memory), freed with imago_matshaper8_destroy; its parts, to fill
   in (Swift cannot import an array of 16385 elements). */
imago_matshaper8 *imago_matshaper8_create(void);
void imago_matshaper8_destroy(imago_matshaper8 *t);
uint16_t *imago_matshaper8_input(imago_matshaper8 *t, int channel);
int32_t *imago_matshaper8_matrix(imago_matshaper8 *t);
uint8_t *imago_matshaper8_output(imago_matshaper8 *t);

/* Converts `count` pixels of `bytes_per_pixel` bytes in place; `red`, `green` and `blue` are the
   channels' byte offsets in a pixel, and any other byte (alpha) is left as it is. */
void imago_matshaper8_apply(const imago_matshaper8 *t, uint8_t *pixels, size_t count, int bytes_per_pixel,
                            int red, int green, int blue);

#ifdef __cplusplus
}
#endif
/* ---------------------------------------------------------------- libtiff (memory I/O, variadic tag access) */

#include <tiffio.h>

typedef struct imago_tiff imago_tiff;
/* Opens a TIFF in memory for reading (the data must outlive the handle); max_alloc bounds any
   single allocation libtiff makes (0: its default). Errors are collected, never printed. */
imago_tiff *imago_tiff_open_memory(const uint8_t *data, size_t size, uint64_t max_alloc);
/* Starts a TIFF written to memory. */
imago_tiff *imago_tiff_create_memory(void);
TIFF *imago_tiff_handle(imago_tiff *t);
const char *imago_tiff_message(imago_tiff *t);
void imago_tiff_close(imago_tiff *t);
/* Finishes writing; the bytes stay valid until imago_tiff_close. */
const uint8_t *imago_tiff_written(imago_tiff *t, size_t *size);
int imago_tiff_get_u32(TIFF *tif, uint32_t tag, uint32_t *value);
int imago_tiff_get_u16(TIFF *tif, uint32_t tag, uint16_t *value);
int imago_tiff_get_u16_defaulted(TIFF *tif, uint32_t tag, uint16_t *value);
int imago_tiff_get_extra_samples(TIFF *tif, uint16_t *count, const uint16_t **values);
int imago_tiff_get_icc(TIFF *tif, uint32_t *length, const uint8_t **data);
int imago_tiff_set_u32(TIFF *tif, uint32_t tag, uint32_t value);
int imago_tiff_set_u16(TIFF *tif, uint32_t tag, uint16_t value);
int imago_tiff_set_extra_alpha(TIFF *tif, uint16_t kind);
int imago_tiff_set_icc(TIFF *tif, uint32_t length, const uint8_t *data);
/* TIFFReadRGBAImageOriented, stopping on the first error: packed ABGR words, associated alpha. */
int imago_tiff_read_rgba(TIFF *tif, uint32_t width, uint32_t height, uint32_t *raster, int orientation);
int imago_tiff_directory_count(TIFF *tif);
int imago_tiff_set_directory(TIFF *tif, int index);
int imago_tiff_write_scanline(TIFF *tif, void *row, uint32_t y);
int imago_tiff_write_directory(TIFF *tif);

/* --- libjxl, loaded on first use (jxl_loader.c) --- */

/* Whether libjxl (libjxl0.7) could be loaded; the first call loads it. */
int imago_jxl_available(void);

/* --- libavif, loaded on first use (avif_loader.c) --- */

/* Whether libavif (libavif15) could be loaded; the first call loads it. */
int imago_avif_available(void);

/* --- SVG (librsvg, drawn with cairo; vector_glue.c) and PDF (poppler's Splash in libImagoPDF;
   pdf_loader.c), loaded on first use --- */

/* Whether librsvg (librsvg2-2) and cairo could be loaded; the first call loads them. */
int imago_svg_available(void);

/* librsvg 2.54 matches `systemLanguage` against the process's languages (glib reads LANGUAGE,
   LC_ALL, LC_MESSAGES and LANG), and under the C or POSIX locale, usual in containers and
   services, no language matches, where browsers and resvg match English. This sets LANGUAGE=en
   when none of those names a language (unset, empty, C, C.<codeset> or POSIX), and returns 1
   when it did. It changes the environment, so only an executable calls it, first in main, before
   any thread exists (ProcessStart.prepare() in ImagoCommandLine; not a C constructor, see
   imago_cli_default_language). */
int imago_svg_default_language(void);
/* Opens libImagoPDF at `path` unless it is open already: 1 when it is open, 0 with the reason in `error`. */
int imago_pdf_load(const char *path, char *error, size_t error_length);
/* Whether libImagoPDF is open (imago_pdf_load succeeded). */
int imago_pdf_available(void);

enum { IMAGO_RENDER_OK = 0, IMAGO_RENDER_FAILED = 1, IMAGO_RENDER_TIMED_OUT = 2 };

/* One of an SVG's width and height attributes: a CSS length in librsvg's units
   (0 percent, 1 px, 2 em, 3 ex, 4 in, 5 cm, 6 mm, 7 pt, 8 pc). */
typedef struct {
    int present;
    double length;
    int unit;
} imago_svg_dimension;

typedef struct imago_svg imago_svg;
/* Parses a document with no base location, so nothing outside it loads (only data: URLs).
   NULL on failure, with librsvg's message in err. */
imago_svg *imago_svg_open(const uint8_t *data, size_t length, char *err, size_t err_length);
void imago_svg_dimensions(imago_svg *svg, imago_svg_dimension *width, imago_svg_dimension *height,
                          int *has_view_box, double *view_box_width, double *view_box_height);
/* Width and height in pixels at 96 dpi when both are absolute lengths; 0 otherwise. */
int imago_svg_size_in_pixels(imago_svg *svg, double *width, double *height);
/* Draws the whole document fitted to a viewport_width x viewport_height viewport, scaled by
   scale_x, scale_y, into width x height premultiplied ARGB32 pixels (cleared by the caller),
   stopping at the first drawing operation past max_seconds. */
int imago_svg_render(imago_svg *svg, uint8_t *pixels, int width, int height, int stride, double viewport_width,
                     double viewport_height, double scale_x, double scale_y, double max_seconds, char *err, size_t err_length);
void imago_svg_close(imago_svg *svg);

typedef struct imago_pdf imago_pdf;
/* Opens a document, copying the bytes. An encrypted document opens only with an empty user
   password; otherwise NULL with *needs_password set. NULL too, with the reason, before
   imago_pdf_load. */
imago_pdf *imago_pdf_open(const uint8_t *data, size_t length, int *needs_password, char *err, size_t err_length);
int imago_pdf_page_count(imago_pdf *pdf);
/* A page's MediaBox in points with its /Rotate applied (pdftoppm's page); 0 when the page cannot be read. */
int imago_pdf_page_size(imago_pdf *pdf, int index, double *width, double *height);
/* The layouts a page is drawn into: ARGB32 (native-endian words), R, G, B, A bytes, R, G, B bytes. */
enum { IMAGO_PDF_ARGB32 = 0, IMAGO_PDF_RGBA8 = 1, IMAGO_PDF_RGB8 = 2 };
/* Draws page `index` on white at the given scale (pixels per point) into opaque pixels of `layout`,
   as pdftoppm draws it, stopping between drawing operators past max_seconds; in `bands` horizontal
   bands drawn by up to `threads` threads at once (the pixels depend on the bands, not the threads). */
int imago_pdf_render(imago_pdf *pdf, int index, uint8_t *pixels, int width, int height, int stride, int layout,
                     double scale_x, double scale_y, double max_seconds, int bands, int threads, char *err,
                     size_t err_length);
void imago_pdf_close(imago_pdf *pdf);

/* --- Video frames (FFmpeg), loaded on first use (video_glue.c) --- */

typedef struct {
    double duration;   /* seconds, 0 when unknown */
    int width, height; /* the video stream's coded size */
    char codec[32];
    char container[64];
    /* The container's metadata tags, one "key\tvalue\n" a line (tabs and line breaks in them
       made spaces), cut at the buffer's end. */
    char tags[4096];
} imago_video_info;

/* Whether libavformat, libavcodec, libavutil and libswscale could be loaded; the first call loads them. */
int imago_video_available(void);
/* The frame of the MP4/MOV or WebM/Matroska video in `data` at `seconds`: with `keyframes`, the
   last keyframe at or before it; else the first frame at or past it; past the end, the last one.
   At most `max_packets` packets are read and frames are at most `max_pixels`. Returns 0 with
   straight RGBA pixels (tight rows, freed with free()), or -1 with `error` saying why. `info`
   is filled as far as the video was read. */
int imago_video_frame(const uint8_t *data, size_t length, double seconds, int keyframes, long max_pixels, int max_packets,
                      uint8_t **out, int *out_width, int *out_height, imago_video_info *info, char *error, size_t error_length);

/* --- Text (Pango and cairo), loaded on first use (text_glue.c) --- */

/* Whether Pango, pangocairo and cairo could be loaded; the first call loads them. */
int imago_text_available(void);
/* Draws Pango `markup` in `font` (a Pango font description, "sans 16"), black on transparent at
   72 dpi, wrapped at `width` pixels (0: not wrapped), aligned 0 left, 1 centre, 2 right, into a
   new buffer of premultiplied ARGB32 (cairo's), tight rows, that the caller frees with free().
   Returns 0, or -1 with `error` saying why (markup Pango cannot parse, a size over `max_pixels`). */
int imago_text_render(const char *markup, const char *font, int width, int align, long max_pixels, uint8_t **out, int *out_width,
                      int *out_height, char *error, size_t error_length);

/* --- EXIF fields (libexif), loaded on first use (exif_glue.c) --- */

/* Whether libexif could be loaded; the first call loads it. */
int imago_exif_available(void);
/* The fields of a TIFF-structured EXIF block (without the Exif\0\0 prefix), but for IFD 1's (the
   thumbnail's): names (libexif's titles, or tag names with `canonical`) and display values as
   NUL-terminated strings, name then value, into `out`, as many pairs as fit in `capacity`.
   Returns the number of pairs, -1 without libexif. Nothing is added that the data lacks. */
int imago_exif_fields(const uint8_t *tiff, size_t length, int canonical, char *out, size_t capacity);

/* --- XML (libxml2's streaming reader), loaded on first use (xml_glue.c) --- */

/* Whether libxml2 (libxml2) could be loaded; the first call loads it. */
int imago_xml_available(void);
typedef struct imago_xml imago_xml;
/* A reader over a UTF-8 document: no network, entities substituted (the caller refuses external
   ones first), errors kept rather than printed. NULL without libxml2. */
imago_xml *imago_xml_open(const uint8_t *data, size_t length);
/* Moves to the next node (past the current element's subtree with skip_children): 1 on a node,
   0 at the end, -1 on an error (imago_xml_error says which). */
int imago_xml_read(imago_xml *x, int skip_children);
/* libxml2's xmlReaderTypes: 1 element, 3 text, 4 CDATA, 7 processing instruction, 8 comment,
   10 document type, 13 whitespace, 14 significant whitespace, 15 end of element. */
int imago_xml_node_type(imago_xml *x);
/* The node's (or attribute's) qualified name, local name and value, UTF-8; NULL when none. */
const char *imago_xml_name(imago_xml *x);
const char *imago_xml_local_name(imago_xml *x);
const char *imago_xml_value(imago_xml *x);
int imago_xml_is_empty(imago_xml *x);
/* Moves to the element's next attribute (namespace declarations first): 1 when there is one. */
int imago_xml_next_attribute(imago_xml *x);
void imago_xml_to_element(imago_xml *x);
/* The first error and its line, or NULL. */
const char *imago_xml_error(imago_xml *x, int *line);
void imago_xml_close(imago_xml *x);

/* --- Faces (OpenCV through libImagoFaceDetector), loaded on first use (face_loader.c) --- */

/* Opens the face-detector library at `path` (Imago's libImagoFaceDetector, which links OpenCV)
   unless one is open already: 1 when one is open, 0 with dlerror's message otherwise. */
int imago_faces_open(const char *path, char *error, size_t error_length);
/* The open library's calls (see Sources/CImagoFaceDetector/include/imago_face_detector.h);
   without one they fail with a message. A box is five int32: x, y, width, height, neighbours. */
void *imago_faces_cascade_load(const char *path, char *error, size_t error_length);
void imago_faces_cascade_free(void *cascade);
int imago_faces_detect(void *cascade, const uint8_t *gray, int width, int height, int stride, int min_size,
                       int min_neighbors, double scale_factor, double time_limit_ms, int32_t *boxes, int max_boxes, int *timed_out,
                       char *error, size_t error_length);

/* --- OpenMP (libgomp, through libimagequant) --- */

/* Sets the calling thread's OpenMP team size (omp_set_num_threads), when OpenMP is present. */
void imago_openmp_set_threads(int threads);

#endif
