// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/* Floors for scripts/bench-server: the C libraries' own decode of each stream's source, timed
 * in one thread. The script turns ms per decode into a req/s floor (cores / time).
 *
 *   bench-server-floor jpeg FILE DENOM N   libjpeg-turbo, DCT-scaled by 1/DENOM
 *   bench-server-floor png FILE N          libpng (simplified API), to RGBA
 *   bench-server-floor gif FILE N          giflib, every frame (DGifSlurp)
 *
 * Prints one line: milliseconds per decode (the best of N). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gif_lib.h>
#include <jpeglib.h>
#include <png.h>

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "read failed\n"); exit(1); }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void decode_jpeg(const unsigned char *data, size_t size, int denom) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr jerr;
    cinfo.err = jpeg_std_error(&jerr);
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned)denom;
    cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 4;
    unsigned char *rows = malloc(stride * cinfo.output_height);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = rows + stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(rows);
}

static void decode_png(const unsigned char *data, size_t size) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) { fprintf(stderr, "png: %s\n", image.message); exit(1); }
    image.format = PNG_FORMAT_RGBA;
    unsigned char *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) { fprintf(stderr, "png: %s\n", image.message); exit(1); }
    free(pixels);
}

struct reader { const unsigned char *data; size_t size, at; };

static int read_gif(GifFileType *gif, GifByteType *out, int n) {
    struct reader *r = gif->UserData;
    size_t left = r->size - r->at;
    size_t take = (size_t)n < left ? (size_t)n : left;
    memcpy(out, r->data + r->at, take);
    r->at += take;
    return (int)take;
}

static void decode_gif(const unsigned char *data, size_t size) {
    struct reader r = {data, size, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&r, read_gif, &error);
    if (!gif || DGifSlurp(gif) != GIF_OK) { fprintf(stderr, "gif: error %d\n", gif ? gif->Error : error); exit(1); }
    DGifCloseFile(gif, &error);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s jpeg FILE DENOM N | png FILE N | gif FILE N\n", argv[0]); return 2; }
    size_t size;
    unsigned char *data = slurp(argv[2], &size);
    int jpeg = strcmp(argv[1], "jpeg") == 0;
    int denom = jpeg ? atoi(argv[3]) : 1;
    int n = atoi(argv[jpeg ? 4 : 3]);
    double best = 1e18;
    for (int i = 0; i < n; i++) {
        double t0 = now_ms();
        if (jpeg) decode_jpeg(data, size, denom);
        else if (strcmp(argv[1], "png") == 0) decode_png(data, size);
        else decode_gif(data, size);
        double t = now_ms() - t0;
        if (t < best) best = t;
    }
    printf("%.3f\n", best);
    free(data);
    return 0;
}
