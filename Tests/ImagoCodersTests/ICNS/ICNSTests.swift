// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("ICNS")
struct ICNSTests {
    /// An icns container of the given elements.
    static func icns(_ elements: [(String, Data)]) -> Data {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var body = Data()
        for (type, data) in elements {
            body.append(contentsOf: Array(type.utf8) + be32(data.count + 8))
            body.append(data)
        }
        return Data(Array("icns".utf8) + be32(body.count + 8)) + body
    }

    @Test("the largest PNG entry is decoded; legacy-only files and broken containers give typed errors")
    func largestEntry() throws {
        let coders = ImageCoderRegistry.makeDefault()
        let small = try coders.encode(Image(buffer: try Fixtures.gradient(width: 32, height: 32, alpha: true)), as: .png)
        let large = try coders.encode(Image(buffer: try Fixtures.gradient(width: 128, height: 128, alpha: true)), as: .png)
        let data = Self.icns([("TOC ", Data(count: 8)), ("ic11", small), ("is32", Data(count: 40)), ("ic07", large)])
        #expect(ImageFormat(sniffing: data) == .icns)
        let image = try coders.decode(data)
        #expect(image.pixelSize == PixelSize(width: 128, height: 128) && image.format == .icns && image.hasAlpha)
        #expect(try coders.info(of: data).width == 128)
        #expect(try ICNSCoder.entries(of: data).map(\.type) == ["TOC ", "ic11", "is32", "ic07"])
        #expect(throws: ImageCodingError.self) { _ = try coders.decode(Self.icns([("is32", Data(count: 40))])) }
        var broken = data
        broken.replaceSubrange(12..<16, with: [0x7F, 0xFF, 0xFF, 0xFF])  // the first element claims 2 GB
        #expect(throws: ImageCodingError.self) { _ = try coders.decode(broken) }
    }
}
