// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser

/// `--frames`' value: 0-based numbers and ranges separated by commas (`0,2-4`), in the order
/// given, each once.
package struct FrameList: ExpressibleByArgument, Sendable {
    /// The frames, without repeats.
    package let indices: [Int]

    /// The most a list may name, so that `0-999999999` is refused rather than allocated.
    package static let maxCount = 100_000

    package init?(argument: String) {
        var seen = Set<Int>(), indices: [Int] = []
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = Int(ends[0]), first >= 0, let last = ends.count == 2 ? Int(ends[1]) : first, last >= first,
                last - first < Self.maxCount
            else { return nil }
            for index in first...last where seen.insert(index).inserted {
                indices.append(index)
                if indices.count > Self.maxCount { return nil }
            }
        }
        self.indices = indices
    }
}
