// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_FACE_DETECTOR_H
#define IMAGO_FACE_DETECTOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libImagoFaceDetector: OpenCV's cascade face detector behind a C interface, built as a shared
   library of its own so that the processes that never detect a face never map OpenCV (ImagoProcessing's
   FaceDetector opens it with dlopen on first use). OpenCV 4's detectors are C++ only. */

/// The interface's version; a library of another version is not used.
#define IMAGO_FACE_DETECTOR_VERSION 1

typedef struct imago_face_cascade imago_face_cascade;

/// One detection: the box in the image's pixels and the number of neighbouring windows that
/// agreed on it (OpenCV's grouping count, at least the `min_neighbors` asked for).
typedef struct {
    int32_t x, y, width, height;
    int32_t neighbors;
} imago_face_box;

int imago_face_detector_version(void);

/// Reads a cascade (OpenCV's XML); NULL with a message in `error` when it cannot.
imago_face_cascade *imago_face_cascade_load(const char *path, char *error, size_t error_length);

void imago_face_cascade_free(imago_face_cascade *cascade);

/// Detects faces in an 8-bit gray image (`stride` bytes a row), from the largest sizes to the
/// smallest, `min_size` pixels at least, each size `scale_factor` times the one below it.
/// Before each band of sizes the thread's CPU time is read, and past `time_limit_ms` of it the
/// search stops (`*timed_out` set) with what it found. Up to `max_boxes` boxes are written; returns how many were found in all (more than written when cut), or -1
/// with a message in `error`. Not to be called on one cascade from two threads at once.
int imago_face_detect(imago_face_cascade *cascade, const uint8_t *gray, int width, int height, int stride,
                      int min_size, int min_neighbors, double scale_factor, double time_limit_ms, imago_face_box *boxes, int max_boxes,
                      int *timed_out, char *error, size_t error_length);

#ifdef __cplusplus
}
#endif

#endif
