// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "imago_glue.h"

/* The face detector (ImagoProcessing's FaceDetector): Imago's own libImagoFaceDetector, the C
   face of OpenCV's cascade classifier, opened with dlopen the first time a face is looked for, so
   that OpenCV (about 30 MB of libraries) is mapped only by processes that use it. The library's
   boxes are five int32 (x, y, width, height, neighbours), as imago_face_box. */

static pthread_mutex_t faces_lock = PTHREAD_MUTEX_INITIALIZER;
static void *(*p_load)(const char *, char *, size_t);
static void (*p_free)(void *);
static int (*p_detect)(void *, const uint8_t *, int, int, int, int, int, double, double, int32_t *, int, int *, char *, size_t);

static void say(char *error, size_t length, const char *what, const char *detail) {
    if (error && length > 0) snprintf(error, length, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

int imago_faces_open(const char *path, char *error, size_t error_length) {
    pthread_mutex_lock(&faces_lock);
    int ok = p_detect != NULL;
    if (!ok) {
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            say(error, error_length, "cannot open the face detector", dlerror());
        } else {
            int (*version)(void) = (int (*)(void))dlsym(lib, "imago_face_detector_version");
            void *(*load)(const char *, char *, size_t) = (void *(*)(const char *, char *, size_t))dlsym(lib, "imago_face_cascade_load");
            void (*release)(void *) = (void (*)(void *))dlsym(lib, "imago_face_cascade_free");
            int (*detect)(void *, const uint8_t *, int, int, int, int, int, double, double, int32_t *, int, int *, char *, size_t) =
                (int (*)(void *, const uint8_t *, int, int, int, int, int, double, double, int32_t *, int, int *, char *, size_t))dlsym(lib, "imago_face_detect");
            if (!version || !load || !release || !detect || version() != 1) {
                say(error, error_length, "not Imago's face detector, or of another version", path);
                dlclose(lib);
            } else {
                p_load = load;
                p_free = release;
                p_detect = detect;
                ok = 1;
            }
        }
    }
    pthread_mutex_unlock(&faces_lock);
    return ok;
}

static int opened(void) {
    pthread_mutex_lock(&faces_lock);
    int ok = p_detect != NULL;
    pthread_mutex_unlock(&faces_lock);
    return ok;
}

void *imago_faces_cascade_load(const char *path, char *error, size_t error_length) {
    if (!opened()) {
        say(error, error_length, "the face detector is not open", NULL);
        return NULL;
    }
    return p_load(path, error, error_length);
}

void imago_faces_cascade_free(void *cascade) {
    if (cascade && opened()) p_free(cascade);
}

int imago_faces_detect(void *cascade, const uint8_t *gray, int width, int height, int stride, int min_size,
                       int min_neighbors, double scale_factor, double time_limit_ms, int32_t *boxes, int max_boxes,
                       int *timed_out, char *error, size_t error_length) {
    if (!opened()) {
        say(error, error_length, "the face detector is not open", NULL);
        return -1;
    }
    return p_detect(cascade, gray, width, height, stride, min_size, min_neighbors, scale_factor, time_limit_ms, boxes, max_boxes,
                    timed_out, error, error_length);
}
