/*
 * The bare C library baseline for scripts/bench-peers.
 * Usage: cdecode full|scaled FILE ITERATIONS  ->  "median_ms min_ms width height"
 * Decodes from memory to 8-bit BGRA with each library's plainest call and default quality
 * settings (libjpeg-turbo: JCS_EXT_BGRA, accurate integer IDCT, fancy upsampling; libpng:
 * simplified API; libwebp: WebPDecodeBGRA / scaled WebPDecode). "scaled" asks for 1/8 size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int W, H;

static int decode_jpeg(const unsigned char *d, size_t n, int scaled) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, d, n);
    jpeg_read_header(&c, TRUE);
    c.out_color_space = JCS_EXT_BGRA;
    if (scaled) { c.scale_num = 1; c.scale_denom = 8; }
    jpeg_start_decompress(&c);
    size_t stride = (size_t)c.output_width * 4;
    unsigned char *px = malloc(stride * c.output_height);
    while (c.output_scanline < c.output_height) {
        JDIMENSION left = c.output_height - c.output_scanline, k = left < 4 ? left : 4;
        JSAMPROW rows[4];
        for (JDIMENSION i = 0; i < k; i++) rows[i] = px + (size_t)(c.output_scanline + i) * stride;
        jpeg_read_scanlines(&c, rows, k);
    }
    W = c.output_width; H = c.output_height;
    jpeg_finish_decompress(&c);
    jpeg_destroy_decompress(&c);
    free(px);
    return 0;
}

static int decode_png(const unsigned char *d, size_t n) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, d, n)) return 1;
    img.format = PNG_FORMAT_BGRA;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, NULL, px, 0, NULL)) { free(px); return 1; }
    W = img.width; H = img.height;
    free(px);
    return 0;
}

static int decode_webp(const unsigned char *d, size_t n, int scaled) {
    if (!scaled) {
        uint8_t *px = WebPDecodeBGRA(d, n, &W, &H);
        if (!px) return 1;
        WebPFree(px);
        return 0;
    }
    WebPDecoderConfig config;
    WebPInitDecoderConfig(&config);
    if (WebPGetFeatures(d, n, &config.input) != VP8_STATUS_OK) return 1;
    config.options.use_scaling = 1;
    config.options.scaled_width = (config.input.width + 7) / 8;
    config.options.scaled_height = (config.input.height + 7) / 8;
    config.output.colorspace = MODE_BGRA;
    if (WebPDecode(d, n, &config) != VP8_STATUS_OK) return 1;
    W = config.output.width; H = config.output.height;
    WebPFreeDecBuffer(&config.output);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: cdecode full|scaled FILE ITERATIONS\n"); return 2; }
    int scaled = strcmp(argv[1], "scaled") == 0, iterations = atoi(argv[3]);
    FILE *f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 1; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc(n);
    if (fread(d, 1, n, f) != (size_t)n) return 1;
    fclose(f);
    double *t = malloc(sizeof(double) * iterations);
    for (int i = 0; i < iterations; i++) {
        double s = now_ms();
        int r;
        if (d[0] == 0xFF && d[1] == 0xD8) r = decode_jpeg(d, n, scaled);
        else if (d[0] == 0x89 && d[1] == 'P') r = decode_png(d, n);
        else r = decode_webp(d, n, scaled);
        if (r) { fprintf(stderr, "decode failed\n"); return 1; }
        t[i] = now_ms() - s;
    }
    qsort(t, iterations, sizeof(double), cmp);
    printf("%.3f %.3f %d %d\n", t[iterations / 2], t[0], W, H);
    return 0;
}
