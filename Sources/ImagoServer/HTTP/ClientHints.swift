// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoServiceURL

/// What a browser's Client Hints say about the image it wants (`IMAGO_ENABLE_CLIENT_HINTS`):
/// its device pixel ratio and the width it will show the image at, as imgproxy reads them, plus
/// `Viewport-Width` when no width is sent.
struct ClientHints: Equatable {
    var dpr: Double?
    /// Device pixels.
    var width: Int?

    /// The hints the service asks browsers for, and varies its answers by.
    static let names = ["Sec-CH-DPR", "DPR", "Sec-CH-Width", "Width", "Viewport-Width"]

    init(dpr: Double? = nil, width: Int? = nil) {
        self.dpr = dpr
        self.width = width
    }

    /// The hints in `headers`; values that do not read, or are out of range, are ignored.
    init(_ headers: HTTPFields) {
        func value(_ names: String...) -> String? {
            for name in names { if let field = HTTPField.Name(name), let v = headers[field] { return v } }
            return nil
        }
        if let text = value("Sec-CH-DPR", "DPR"), let d = Double(text), d.isFinite, d > 0 { dpr = min(d, 8) }
        if let text = value("Sec-CH-Width", "Width", "Viewport-Width"), let w = Int(text), w > 0 { width = min(w, 100_000) }
    }

    /// The options they start from: the `dpr`, and the width in CSS pixels (device pixels over
    /// the dpr, rounded as imgproxy does).
    var options: ProcessingOptions {
        var o = ProcessingOptions()
        let ratio = dpr ?? 1
        if let dpr { o.dpr = dpr }
        if let width { o.width = max(1, Int((Double(width) / ratio).rounded(.toNearestOrAwayFromZero))) }
        return o
    }
}
