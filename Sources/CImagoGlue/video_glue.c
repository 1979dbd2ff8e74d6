// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include "imago_glue.h"

/* A frame of a video (video thumbnails), through FFmpeg's libavformat and libavcodec, loaded the
   first time a video is met: the headers give the structures, every function is looked up with
   dlsym, so a process that never reads a video never maps FFmpeg. The video is read from memory
   through a custom AVIOContext; only MP4/MOV and Matroska/WebM containers are opened. */

#define FN(name) static __typeof__(&name) p_##name
FN(avformat_alloc_context); FN(avformat_open_input); FN(avformat_find_stream_info); FN(av_find_best_stream);
FN(av_read_frame); FN(av_seek_frame); FN(avformat_close_input); FN(avio_alloc_context); FN(avio_context_free);
FN(av_malloc); FN(av_free); FN(av_packet_alloc); FN(av_packet_free); FN(av_packet_unref); FN(av_frame_alloc);
FN(av_frame_free); FN(av_frame_unref); FN(av_frame_ref); FN(avcodec_alloc_context3); FN(avcodec_free_context);
FN(avcodec_parameters_to_context); FN(avcodec_open2); FN(avcodec_send_packet); FN(avcodec_receive_frame);
FN(sws_getContext); FN(sws_scale); FN(sws_freeContext); FN(av_strerror); FN(av_log_set_level); FN(av_dict_get);
FN(av_strdup);

/* FFmpeg's names of the demuxers opened (MP4/MOV and Matroska/WebM). */
#define VIDEO_CONTAINERS "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm"

/* Every file or URL a demuxer asks to open beside its input is refused. */
static int refuse_io_open(struct AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)s, (void)pb, (void)url, (void)flags, (void)options;
    return AVERROR(EPERM);
}

static int video_ok;
static pthread_once_t video_once = PTHREAD_ONCE_INIT;

#define LOADF(lib, name) ((p_##name = (__typeof__(p_##name))dlsym(lib, #name)) != NULL)

static void video_load(void) {
    void *u = dlopen("libavutil.so.57", RTLD_NOW | RTLD_LOCAL);
    void *c = dlopen("libavcodec.so.59", RTLD_NOW | RTLD_LOCAL);
    void *f = dlopen("libavformat.so.59", RTLD_NOW | RTLD_LOCAL);
    void *s = dlopen("libswscale.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!u || !c || !f || !s) return;
    video_ok = LOADF(f, avformat_alloc_context) && LOADF(f, avformat_open_input) && LOADF(f, avformat_find_stream_info)
        && LOADF(f, av_find_best_stream) && LOADF(f, av_read_frame) && LOADF(f, av_seek_frame) && LOADF(f, avformat_close_input)
        && LOADF(f, avio_alloc_context) && LOADF(f, avio_context_free) && LOADF(u, av_malloc) && LOADF(u, av_free)
        && LOADF(c, av_packet_alloc) && LOADF(c, av_packet_free) && LOADF(c, av_packet_unref) && LOADF(u, av_frame_alloc)
        && LOADF(u, av_frame_free) && LOADF(u, av_frame_unref) && LOADF(u, av_frame_ref) && LOADF(c, avcodec_alloc_context3)
        && LOADF(c, avcodec_free_context) && LOADF(c, avcodec_parameters_to_context) && LOADF(c, avcodec_open2)
        && LOADF(c, avcodec_send_packet) && LOADF(c, avcodec_receive_frame) && LOADF(s, sws_getContext) && LOADF(s, sws_scale)
        && LOADF(s, sws_freeContext) && LOADF(u, av_strerror) && LOADF(u, av_log_set_level) && LOADF(u, av_dict_get)
        && LOADF(u, av_strdup);
    if (video_ok) p_av_log_set_level(AV_LOG_QUIET);
}

int imago_video_available(void) {
    pthread_once(&video_once, video_load);
    return video_ok;
}

struct memory { const uint8_t *data; size_t length, position; };

static int read_memory(void *opaque, uint8_t *buffer, int size) {
    struct memory *m = opaque;
    if (m->position >= m->length) return AVERROR_EOF;
    size_t n = m->length - m->position < (size_t)size ? m->length - m->position : (size_t)size;
    memcpy(buffer, m->data + m->position, n);
    m->position += n;
    return (int)n;
}

static int64_t seek_memory(void *opaque, int64_t offset, int whence) {
    struct memory *m = opaque;
    if (whence & AVSEEK_SIZE) return (int64_t)m->length;
    int64_t base = (whence & 3) == SEEK_CUR ? (int64_t)m->position : (whence & 3) == SEEK_END ? (int64_t)m->length : 0;
    int64_t target = base + offset;
    if (target < 0 || target > (int64_t)m->length) return -1;
    m->position = (size_t)target;
    return target;
}

static void say(char *error, size_t length, const char *what, int code) {
    char reason[128] = "";
    if (code < 0 && p_av_strerror) p_av_strerror(code, reason, sizeof reason);
    snprintf(error, length, "%s%s%s", what, reason[0] ? ": " : "", reason);
}

int imago_video_frame(const uint8_t *data, size_t length, double seconds, int keyframes, long max_pixels, int max_packets,
                      uint8_t **out, int *out_width, int *out_height, imago_video_info *info, char *error, size_t error_length) {
    *out = NULL;
    memset(info, 0, sizeof *info);
    if (!imago_video_available()) {
        snprintf(error, error_length, "FFmpeg (libavformat 59, libavcodec 59, libswscale 6) is not installed");
        return -1;
    }
    struct memory m = { data, length, 0 };
    AVFormatContext *fmt = NULL;
    AVIOContext *io = NULL;
    AVCodecContext *ctx = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL, *kept = NULL;
    struct SwsContext *sws = NULL;
    int result = -1, code;
    unsigned char *iobuffer = p_av_malloc(32768);
    if (!iobuffer) goto done;
    io = p_avio_alloc_context(iobuffer, 32768, 0, &m, read_memory, NULL, seek_memory);
    if (!io) {
        p_av_free(iobuffer);
        goto done;
    }
    fmt = p_avformat_alloc_context();
    if (!fmt) goto done;
    fmt->pb = io;
    fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    fmt->probesize = 5000000;
    /* Only the containers read here are probed, and a demuxer may open nothing beside the bytes
       it was given: no playlist (HLS, concat) fetching URLs, no MOV reference to a local file. */
    fmt->format_whitelist = p_av_strdup(VIDEO_CONTAINERS);
    fmt->protocol_whitelist = p_av_strdup("none");
    fmt->io_open = refuse_io_open;
    if (!fmt->format_whitelist || !fmt->protocol_whitelist) goto done;
    if ((code = p_avformat_open_input(&fmt, NULL, NULL, NULL)) < 0) {
        fmt = NULL; /* freed by avformat_open_input */
        say(error, error_length, "not a video FFmpeg reads", code);
        goto done;
    }
    const char *container = fmt->iformat ? fmt->iformat->name : "";
    snprintf(info->container, sizeof info->container, "%s", container);
    if (!strstr(container, "mp4") && !strstr(container, "mov") && !strstr(container, "matroska") && !strstr(container, "webm")) {
        snprintf(error, error_length, "the %s container is not read here (MP4, MOV, WebM and Matroska are)", container);
        goto done;
    }
    {
        /* The container's tags, for /info's video_meta. */
        size_t used = 0;
        const AVDictionaryEntry *tag = NULL;
        while ((tag = p_av_dict_get(fmt->metadata, "", tag, AV_DICT_IGNORE_SUFFIX)) != NULL) {
            char line[512];
            int n = snprintf(line, sizeof line, "%s\t%s", tag->key, tag->value ? tag->value : "");
            if (n < 0) break;
            size_t len = strlen(line);
            for (size_t i = 0, tabs = 0; i < len; i++) {
                if (line[i] == '\n' || line[i] == '\r') line[i] = ' ';
                if (line[i] == '\t' && tabs++ > 0) line[i] = ' ';
            }
            if (used + len + 2 > sizeof info->tags) break;
            memcpy(info->tags + used, line, len);
            used += len;
            info->tags[used++] = '\n';
            info->tags[used] = 0;
        }
    }
    if ((code = p_avformat_find_stream_info(fmt, NULL)) < 0) {
        say(error, error_length, "the video's streams cannot be read", code);
        goto done;
    }
    const AVCodec *codec = NULL;
    int index = p_av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (index < 0 || !codec) {
        say(error, error_length, "no video stream this build decodes", index);
        goto done;
    }
    AVStream *stream = fmt->streams[index];
    AVCodecParameters *par = stream->codecpar;
    info->width = par->width;
    info->height = par->height;
    snprintf(info->codec, sizeof info->codec, "%s", codec->name ? codec->name : "");
    double base = av_q2d(stream->time_base);
    if (fmt->duration != AV_NOPTS_VALUE && fmt->duration > 0) info->duration = fmt->duration / (double)AV_TIME_BASE;
    else if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0) info->duration = stream->duration * base;
    if (par->width <= 0 || par->height <= 0 || (long)par->width * par->height > max_pixels) {
        snprintf(error, error_length, "the video is %dx%d, over the limit of %ld pixels", par->width, par->height, max_pixels);
        goto done;
    }
    ctx = p_avcodec_alloc_context3(codec);
    if (!ctx || p_avcodec_parameters_to_context(ctx, par) < 0) goto done;
    ctx->thread_count = 1;
    if ((code = p_avcodec_open2(ctx, codec, NULL)) < 0) {
        say(error, error_length, "the video's codec cannot be opened", code);
        goto done;
    }
    int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    int64_t target = start + (int64_t)(seconds / (base > 0 ? base : 1));
    if (seconds > 0) p_av_seek_frame(fmt, index, target, AVSEEK_FLAG_BACKWARD);
    packet = p_av_packet_alloc();
    frame = p_av_frame_alloc();
    kept = p_av_frame_alloc();
    if (!packet || !frame || !kept) goto done;
    int have = 0, finished = 0, packets = 0, draining = 0;
    while (!finished) {
        if (!draining) {
            code = p_av_read_frame(fmt, packet);
            if (code < 0) {
                draining = 1;
                p_avcodec_send_packet(ctx, NULL);
            } else {
                if (++packets > max_packets) {
                    p_av_packet_unref(packet);
                    if (have) break;
                    snprintf(error, error_length, "no frame within the first %d packets", max_packets);
                    goto done;
                }
                if (packet->stream_index == index) p_avcodec_send_packet(ctx, packet);
                p_av_packet_unref(packet);
            }
        }
        for (;;) {
            code = p_avcodec_receive_frame(ctx, frame);
            if (code == AVERROR(EAGAIN)) break;
            if (code < 0) {
                finished = 1; /* drained: the last frame kept is the answer (a time past the end) */
                break;
            }
            p_av_frame_unref(kept);
            p_av_frame_ref(kept, frame);
            have = 1;
            int64_t pts = frame->best_effort_timestamp;
            p_av_frame_unref(frame);
            if (keyframes || seconds <= 0 || pts == AV_NOPTS_VALUE || pts >= target) {
                finished = 1;
                break;
            }
        }
    }
    if (!have) {
        snprintf(error, error_length, "the video has no frame that decodes");
        goto done;
    }
    int w = kept->width, h = kept->height;
    if (w <= 0 || h <= 0 || (long)w * h > max_pixels) {
        snprintf(error, error_length, "a frame of %dx%d is over the limit", w, h);
        goto done;
    }
    sws = p_sws_getContext(w, h, kept->format, w, h, AV_PIX_FMT_RGBA, SWS_BICUBIC, NULL, NULL, NULL);
    /* swscale's SIMD writes whole blocks of pixels, past the end of a row whose width is not a
       multiple of them: it gets rows padded to 64 bytes and 64 bytes more at the end (a 24x20
       AV1 frame overran a tight buffer), and the rows are packed together afterwards. */
    const size_t row = (size_t)w * 4, padded = (row + 63) & ~(size_t)63;
    uint8_t *pixels = sws ? malloc(padded * (size_t)h + 64) : NULL;
    if (!pixels) {
        snprintf(error, error_length, "the frame cannot be converted");
        goto done;
    }
    uint8_t *planes[4] = { pixels, NULL, NULL, NULL };
    int strides[4] = { (int)padded, 0, 0, 0 };
    p_sws_scale(sws, (const uint8_t *const *)kept->data, kept->linesize, 0, h, planes, strides);
    for (int y = 1; y < h; y++) memmove(pixels + (size_t)y * row, pixels + (size_t)y * padded, row);
    *out = pixels;
    *out_width = w;
    *out_height = h;
    result = 0;
done:
    if (result != 0 && !error[0]) snprintf(error, error_length, "the video cannot be read");
    if (sws) p_sws_freeContext(sws);
    if (kept) p_av_frame_free(&kept);
    if (frame) p_av_frame_free(&frame);
    if (packet) p_av_packet_free(&packet);
    if (ctx) p_avcodec_free_context(&ctx);
    if (fmt) p_avformat_close_input(&fmt);
    if (io) {
        p_av_free(io->buffer);
        p_avio_context_free(&io);
    }
    return result;
}
