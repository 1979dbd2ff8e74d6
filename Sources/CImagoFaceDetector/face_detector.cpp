// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include "imago_face_detector.h"

struct imago_face_cascade {
    cv::CascadeClassifier classifier;
};

static void set_error(char *error, size_t length, const char *message) {
    if (error && length > 0) std::snprintf(error, length, "%s", message);
}

extern "C" int imago_face_detector_version(void) { return IMAGO_FACE_DETECTOR_VERSION; }

extern "C" imago_face_cascade *imago_face_cascade_load(const char *path, char *error, size_t error_length) {
    try {
        // OpenCV prints its errors; the caller reports them. One thread: a search is one job on
        // one of Imago's bounded workers, which must not fan out over the other cores.
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
        cv::setNumThreads(1);
        auto *cascade = new imago_face_cascade();
        if (!cascade->classifier.load(path) || cascade->classifier.empty()) {
            delete cascade;
            set_error(error, error_length, "OpenCV could not read the cascade");
            return nullptr;
        }
        return cascade;
    } catch (const std::exception &e) {
        set_error(error, error_length, e.what());
    } catch (...) {
        set_error(error, error_length, "OpenCV failed reading the cascade");
    }
    return nullptr;
}

extern "C" void imago_face_cascade_free(imago_face_cascade *cascade) { delete cascade; }

/* Milliseconds of CPU time this thread has used. */
static double thread_cpu_ms(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* Intersection over the smaller box: a face found in two bands of sizes is one face. */
static bool same_face(const cv::Rect &a, const cv::Rect &b) {
    const double overlap = (a & b).area();
    return overlap > 0.5 * std::min(a.area(), b.area());
}

extern "C" int imago_face_detect(imago_face_cascade *cascade, const uint8_t *gray, int width, int height, int stride,
                                 int min_size, int min_neighbors, double scale_factor, double time_limit_ms, imago_face_box *boxes,
                                 int max_boxes, int *timed_out, char *error, size_t error_length) {
    if (timed_out) *timed_out = 0;
    if (!cascade || !gray || width <= 0 || height <= 0 || stride < width || !(scale_factor > 1.0) || scale_factor > 4.0) {
        set_error(error, error_length, "no image to search");
        return -1;
    }
    try {
        // The limit is on this thread's CPU time, not the wall clock: a search does the same
        // work, and finds the same faces, however busy the machine is.
        const double start = thread_cpu_ms();
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), static_cast<size_t>(stride));
        cv::Mat equalized;
        cv::equalizeHist(image, equalized);
        std::vector<cv::Rect> faces;
        std::vector<int> counts;
        const int largest = std::min(width, height);
        const int smallest = std::max(min_size, 1);
        // Bands of sizes, each half the one before: large faces cost the fewest windows, so they
        // are searched first and a time limit cuts only the smallest sizes.
        for (int high = largest; high >= smallest; high /= 2) {
            const double elapsed = thread_cpu_ms() - start;
            if (time_limit_ms > 0 && elapsed > time_limit_ms) {
                if (timed_out) *timed_out = 1;
                break;
            }
            const int low = std::max(smallest, high / 2);
            std::vector<cv::Rect> found;
            std::vector<int> neighbors;
            cascade->classifier.detectMultiScale(equalized, found, neighbors, scale_factor, min_neighbors, 0, cv::Size(low, low),
                                                 cv::Size(high, high));
            for (size_t i = 0; i < found.size(); i++) {
                bool merged = false;
                for (size_t j = 0; j < faces.size(); j++) {
                    if (!same_face(found[i], faces[j])) continue;
                    if (neighbors[i] > counts[j]) {
                        faces[j] = found[i];
                        counts[j] = neighbors[i];
                    }
                    merged = true;
                    break;
                }
                if (!merged) {
                    faces.push_back(found[i]);
                    counts.push_back(neighbors[i]);
                }
            }
            if (low == smallest) break;
        }
        const int n = static_cast<int>(faces.size());
        for (int i = 0; i < n && i < max_boxes; i++) {
            boxes[i].x = faces[i].x;
            boxes[i].y = faces[i].y;
            boxes[i].width = faces[i].width;
            boxes[i].height = faces[i].height;
            boxes[i].neighbors = counts[i];
        }
        return n;
    } catch (const std::exception &e) {
        set_error(error, error_length, e.what());
    } catch (...) {
        set_error(error, error_length, "OpenCV failed detecting faces");
    }
    return -1;
}
