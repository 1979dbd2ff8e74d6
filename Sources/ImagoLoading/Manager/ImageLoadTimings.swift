// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// How long each stage of a load took: the per-task breakdown that ``ImageLoadResult``,
/// ``EncodedImageResult`` and ``LoadedSource`` carry (Nuke's task metrics), and what the
/// service's `Server-Timing` header sends.
///
/// Work shared between loads (one download, one decode for several callers) is reported to each
/// of them as the shared work took it, not as long as each caller waited for it. A stage that did
/// not run (a memory hit decodes nothing) is zero.
public struct ImageLoadTimings: Sendable, Hashable {
    /// Reading the disk cache: opening an entry, or reading it.
    public var diskRead: Duration = .zero
    /// The download, from the request to its last byte.
    public var download: Duration = .zero
    /// CPU work waiting for a worker of the processing queue, every stage together.
    public var queueWait: Duration = .zero
    /// Decoding (for a conversion streamed in rows, decoding and encoding together).
    public var decode: Duration = .zero
    /// The transformers.
    public var transform: Duration = .zero
    /// Encoding the output.
    public var encode: Duration = .zero

    /// No time in any stage.
    public init() {}

    /// The stages that took time, in pipeline order, with their `Server-Timing` names:
    /// `disk`, `download`, `queue`, `decode`, `transform`, `encode`.
    public var stages: [(name: String, duration: Duration)] {
        [
            ("disk", diskRead), ("download", download), ("queue", queueWait), ("decode", decode), ("transform", transform),
            ("encode", encode)
        ].filter { $0.1 > .zero }
    }

    /// The `Server-Timing` header's value: each stage that took time as `name;dur=milliseconds`.
    package var serverTimingValue: String {
        stages.map { stage in
            let ms = Double(stage.duration.components.seconds) * 1000 + Double(stage.duration.components.attoseconds) / 1e15
            return "\(stage.name);dur=\((ms * 100).rounded() / 100)"
        }.joined(separator: ", ")
    }

    /// These timings with `other`'s added, stage by stage (a source's fetch and its encode, say).
    public func adding(_ other: ImageLoadTimings) -> ImageLoadTimings {
        var sum = self
        sum.diskRead += other.diskRead
        sum.download += other.download
        sum.queueWait += other.queueWait
        sum.decode += other.decode
        sum.transform += other.transform
        sum.encode += other.encode
        return sum
    }
}
