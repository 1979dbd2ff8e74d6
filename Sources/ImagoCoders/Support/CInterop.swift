// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Calls `body` with a pointer and length for optional bytes (`nil`, 0 when absent).
func withOptionalBytes<R>(_ data: Data?, _ body: (UnsafePointer<UInt8>?, Int) throws -> R) rethrows -> R {
    guard let data, !data.isEmpty else { return try body(nil, 0) }
    return try data.withUnsafeBytes { try body($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
}

/// Runs a glue encoder that returns a malloc'd buffer, copies it into `Data`, and frees it.
func runEncoder(
    _ format: ImageFormat,
    _ call: (
        UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>,
        UnsafeMutablePointer<CChar>, Int
    ) -> Int32
) throws -> Data {
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    var message = [CChar](repeating: 0, count: 256)
    let status = message.withUnsafeMutableBufferPointer { m -> Int32 in
        guard let base = m.baseAddress else { return Int32(IMAGO_ERROR) }
        return call(&out, &length, base, m.count)
    }
    defer { imago_free(out) }
    guard status == Int32(IMAGO_OK), let out else {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw ImageCodingError.encodingFailed(format, text.isEmpty ? "the encoder reported no reason" : text)
    }
    return Data(bytes: out, count: length)
}
