// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Converting between frames with their own durations and a sequence of equal-duration frames,
/// as SDWebImage's coder helper does for `UIImage.animatedImage(with:duration:)`, which can only
/// show every frame for the same time.
public enum FrameTiming {
    /// The time a frame stored with `seconds` is shown, as browsers and SDWebImage show it: a
    /// delay of 10 ms or less (including none) shows for 100 ms. GIF, APNG and WebP all use it.
    @inlinable
    public static func displayedDuration(_ seconds: Double) -> Double {
        seconds <= 0.010 ? 0.1 : seconds
    }

    /// The greatest common divisor of `durations`, in whole milliseconds (at least 1 ms); 0.1 s for
    /// an empty list. Durations are rounded to milliseconds first.
    public static func commonDuration(_ durations: [Double]) -> Double {
        let ms = durations.map { max(1, Int(($0 * 1000).rounded())) }
        guard var g = ms.first else { return 0.1 }
        for m in ms.dropFirst() {
            var (a, b) = (g, m)
            while b != 0 { (a, b) = (b, a % b) }
            g = a
        }
        return Double(g) / 1000
    }

    /// Frames of one equal duration: each frame repeated `duration / common` times. Repeats share
    /// their pixels (copy-on-write), so the expansion costs no pixel memory.
    ///
    /// - Parameters:
    ///   - frames: The frames, each with its own duration.
    ///   - limit: At most this many frames come out; when the expansion would exceed it,
    ///     the common duration is doubled until it fits (durations then round to it). Default 10 000.
    public static func uniform(_ frames: [ImageFrame], limit: Int = 10_000) -> (frames: [ImageFrame], duration: Double) {
        guard !frames.isEmpty else { return ([], 0.1) }
        var common = commonDuration(frames.map(\.duration))
        func count(_ d: Double) -> Int { max(1, Int((d / common).rounded())) }
        while frames.reduce(0, { $0 + count($1.duration) }) > max(limit, frames.count), common < 3600 { common *= 2 }
        var out: [ImageFrame] = []
        for frame in frames {
            for _ in 0..<count(frame.duration) { out.append(ImageFrame(buffer: frame.buffer, duration: common)) }
        }
        return (out, common)
    }

    /// The reverse of ``uniform(_:limit:)``: consecutive frames with identical pixels merge into one
    /// whose duration is their sum.
    public static func collapsingRepeats(_ frames: [ImageFrame]) -> [ImageFrame] {
        var out: [ImageFrame] = []
        for frame in frames {
            if let last = out.last, last.buffer == frame.buffer {
                out[out.count - 1].duration += frame.duration
            } else {
                out.append(frame)
            }
        }
        return out
    }
}
