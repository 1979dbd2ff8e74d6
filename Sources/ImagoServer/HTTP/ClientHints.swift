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

    /// The hints in `headers`, each from the first of its headers whose value reads and is in
    /// range, as imgproxy takes them: a bad `Sec-CH-DPR` (or one over 8) leaves `DPR` to say.
    init(_ headers: HTTPFields) {
        func first<T>(_ names: [String], _ read: (String) -> T?) -> T? {
            for name in names {
                if let field = HTTPField.Name(name), let text = headers[field], let v = read(text) { return v }
            }
            return nil
        }
        dpr = first(["Sec-CH-DPR", "DPR"]) { Double($0).flatMap { $0.isFinite && $0 > 0 && $0 <= 8 ? $0 : nil } }
        width = first(["Sec-CH-Width", "Width", "Viewport-Width"]) { Int($0).flatMap { $0 > 0 ? min($0, 100_000) : nil } }
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
