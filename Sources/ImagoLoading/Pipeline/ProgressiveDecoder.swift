// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The progressive decoder of one decode stage, touched only by its one run in flight
/// (``LatestWork`` runs one at a time), which is what makes `@unchecked Sendable` sound.
final class ProgressiveDecoder: @unchecked Sendable {
    private let step: DecodeStep
    private var decoder: (any ProgressiveImageDecoding)?
    private var failed = false

    init(step: DecodeStep) {
        self.step = step
    }

    /// The partial image of everything received so far, brought to the final image's size, or
    /// `nil` before any pixels can be shown. After an error it gives up: the final one-shot
    /// decode reports the error.
    func partialImage(_ bytes: Data) -> Image? {
        guard !failed else { return nil }
        if decoder == nil {
            // Not enough bytes to tell the format yet, or no progressive decoder for it: try again later.
            decoder = step.coders.makeProgressiveDecoder(for: bytes, options: step.progressiveOptions)
        }
        guard let decoder else { return nil }
        do {
            try decoder.update(bytes, isFinal: false)
            return try decoder.currentImage().map(step.finishPartial)
        } catch {
            failed = true
            return nil
        }
    }
}
