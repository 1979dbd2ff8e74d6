// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// A PNG's rows finished on a helper thread (`DecodeOptions.rowHelperThread`, which streamed
/// conversions ask for) reach the consumer exactly as on the decoding thread: every row once, in
/// order, with the same bytes; the consumer's error and libpng's stop the decode as before.
@Suite("Rows finished on a helper thread")
struct RowHandoffTests {
    /// Keeps every row it is given, and throws at row `failAt`.
    final class Recorder: DecodedRowConsuming, @unchecked Sendable {
        struct Stop: Error {}
        var rows: [(y: Int, bytes: [UInt8])] = []
        var size: PixelSize?
        let failAt: Int?

        init(failAt: Int? = nil) { self.failAt = failAt }

        func begin(size: PixelSize) throws { self.size = size }

        func consume(row: UnsafeRawBufferPointer, y: Int) throws {
            if y == failAt { throw Stop() }
            rows.append((y, Array(row)))
        }
    }

    static func png(height: Int, profile: Data? = nil) throws -> Data {
        var image = Image(buffer: try Fixtures.gradient(width: 97, height: height, alpha: true))
        image.metadata.iccProfile = profile
        return try ImageCoderRegistry.shared.encode(image, as: .png, options: EncodeOptions(keepMetadata: true))
    }

    static func decode(_ data: Data, helper: Bool, into recorder: Recorder) throws {
        var options = DecodeOptions()
        options.rowHelperThread = helper
        _ = try PNGCoder().decodeRows(from: DataByteSource(data), options: options, into: recorder)
    }

    @Test(
        "every row once, in order, the same bytes as on one thread: band edges, a Display P3 profile",
        arguments: [1, 15, 16, 17, 203])
    func sameRows(height: Int) throws {
        var converted: [[[UInt8]]] = []
        for profile in [nil, ColorProfiles.displayP3] {
            let data = try Self.png(height: height, profile: profile)
            let alone = Recorder(), helped = Recorder()
            try Self.decode(data, helper: false, into: alone)
            try Self.decode(data, helper: true, into: helped)
            #expect(helped.size == PixelSize(width: 97, height: height))
            #expect(helped.rows.map(\.y) == Array(0..<height), "height \(height)")
            #expect(helped.rows.map(\.bytes) == alone.rows.map(\.bytes), "height \(height), profile \(profile != nil)")
            converted.append(helped.rows.map(\.bytes))
        }
        #expect(converted[0] != converted[1], "the Display P3 rows were converted to sRGB")
    }

    @Test("the consumer's error ends the decode with that error, whichever band it falls in, and nothing after it arrives")
    func consumerError() throws {
        let data = try Self.png(height: 203)
        for failAt in [0, 15, 16, 100, 202] {
            let recorder = Recorder(failAt: failAt)
            #expect(throws: Recorder.Stop.self) { try Self.decode(data, helper: true, into: recorder) }
            #expect(recorder.rows.map(\.y) == Array(0..<failAt), "failing at \(failAt)")
        }
    }

    @Test("a truncated PNG gives libpng's typed error with the helper too")
    func truncated() throws {
        let data = try Self.png(height: 203)
        for cut in [data.count / 3, data.count / 2, data.count - 20] {
            #expect(throws: ImageCodingError.self) { try Self.decode(data.prefix(cut), helper: true, into: Recorder()) }
        }
    }
}
