// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CWebP
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Adds ICCP and EXIF chunks to an encoded WebP with libwebp's muxer.
enum WebPMuxing {
    static func attach(icc: Data?, exif: Data?, to bitstream: Data) throws -> Data {
        guard let mux = WebPNewInternal(WEBP_MUX_ABI_VERSION) else { throw ImageCodingError.encoderUnavailable(.webp) }
        defer { WebPMuxDelete(mux) }
        func set(_ data: Data, _ body: (inout WebPData) -> WebPMuxError) -> WebPMuxError {
            data.withUnsafeBytes { raw in
                var d = WebPData(bytes: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), size: raw.count)
                return body(&d)
            }
        }
        var err = set(bitstream) { WebPMuxSetImage(mux, &$0, 1) }
        if err == WEBP_MUX_OK, let icc { err = set(icc) { WebPMuxSetChunk(mux, "ICCP", &$0, 1) } }
        if err == WEBP_MUX_OK, let exif { err = set(exif) { WebPMuxSetChunk(mux, "EXIF", &$0, 1) } }
        var out = WebPData()
        if err == WEBP_MUX_OK { err = WebPMuxAssemble(mux, &out) }
        defer { WebPDataClear(&out) }
        guard err == WEBP_MUX_OK, let bytes = out.bytes else {
            throw ImageCodingError.corrupt(.webp, "libwebp's muxer failed to add metadata (error \(err.rawValue))")
        }
        return Data(bytes: bytes, count: out.size)
    }

    /// Adds ICCP and EXIF chunks to an assembled animation.
    static func attach(icc: Data?, exif: Data?, toAnimation animation: Data) throws -> Data {
        try animation.withUnsafeBytes { raw in
            var source = WebPData(bytes: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), size: raw.count)
            guard let mux = WebPMuxCreateInternal(&source, 1, WEBP_MUX_ABI_VERSION) else {
                throw ImageCodingError.corrupt(.webp, "libwebp's muxer could not read the animation")
            }
            defer { WebPMuxDelete(mux) }
            func set(_ data: Data, _ fourcc: String) -> WebPMuxError {
                data.withUnsafeBytes { bytes in
                    var d = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
                    return WebPMuxSetChunk(mux, fourcc, &d, 1)
                }
            }
            var err = WEBP_MUX_OK
            if let icc { err = set(icc, "ICCP") }
            if err == WEBP_MUX_OK, let exif { err = set(exif, "EXIF") }
            var out = WebPData()
            if err == WEBP_MUX_OK { err = WebPMuxAssemble(mux, &out) }
            defer { WebPDataClear(&out) }
            guard err == WEBP_MUX_OK, let bytes = out.bytes else {
                throw ImageCodingError.corrupt(.webp, "libwebp's muxer failed to add metadata (error \(err.rawValue))")
            }
            return Data(bytes: bytes, count: out.size)
        }
    }
}
