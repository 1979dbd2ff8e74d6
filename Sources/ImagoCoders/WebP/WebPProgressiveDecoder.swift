// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CWebP
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Incremental WebP decoding through `WebPIDecoder`: the rows decoded so far.
final class WebPProgressiveDecoder: ProgressiveImageDecoding {
    private let options: DecodeOptions
    private var plan: WebPOutputPlan?
    private var storage: ZeroedStorage?
    private var idec: OpaquePointer?
    /// libwebp keeps a pointer to `config.output` for the incremental decoder's whole life,
    /// so the configuration lives on the heap, owned here, and is freed after the decoder.
    private let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
    private var lastRow: Int32 = 0
    private(set) var info: ImageInfo?
    private(set) var isComplete = false

    init(options: DecodeOptions) { self.options = options }
    deinit {
        if let idec { WebPIDelete(idec) }
        config.deallocate()
    }

    func update(_ data: Data, isFinal: Bool) throws {
        try options.limits.check(inputBytes: data.count)
        if isComplete { return }
        if plan == nil {
            let container: WebPContainer
            do {
                container = try WebPContainer(data, partial: true)
            } catch ImageCodingError.truncated(let f, let m) {
                if isFinal { throw ImageCodingError.truncated(f, m) }
                return
            }
            if container.isAnimated {
                throw ImageCodingError.unsupportedFeature(.webp, "this is an animated WebP; WebPCoder decodes stills only")
            }
            try options.limits.check(width: container.width, height: container.height, format: .webp)
            let plan = WebPOutputPlan(container: container, options: options)
            let (_, total) = try PixelBuffer.layout(width: plan.width, height: plan.height, format: .rgba8)
            let storage = ZeroedStorage(byteCount: total)
            config.initialize(to: plan.makeConfig(output: storage.bytes))
            guard let dec = WebPIDecode(nil, 0, config) else {
                throw ImageCodingError.corrupt(.webp, "libwebp could not start an incremental decoder")
            }
            idec = dec
            self.plan = plan
            self.storage = storage
            info = try container.info(limits: options.limits)
        }
        guard let idec else { return }
        let status = data.withUnsafeBytes { WebPIUpdate(idec, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
        var w: Int32 = 0, h: Int32 = 0, stride: Int32 = 0
        var last: Int32 = 0
        _ = WebPIDecGetRGB(idec, &last, &w, &h, &stride)
        lastRow = last
        switch status {
        case VP8_STATUS_OK: isComplete = true
        case VP8_STATUS_SUSPENDED:
            if isFinal { throw ImageCodingError.truncated(.webp, "the data ends in the image data (\(last) rows decoded)") }
        default: try WebPContainer.check(status, during: "the image data")
        }
        if isComplete, let container = try? WebPContainer(data), let full = try? container.info(limits: options.limits) { info = full }
    }

    func currentImage() throws -> Image? {
        guard let plan, let storage, lastRow > 0 else { return nil }
        let raw = try storage.snapshot(width: plan.width, height: plan.height, format: plan.rawFormat, bytesPerRow: plan.width * 4)
        return plan.finish(raw, incremental: !isComplete)
    }
}
