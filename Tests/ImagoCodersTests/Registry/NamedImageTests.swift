// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("Image.named (YYImage's imageNamed:)")
struct NamedImageTests {
    @Test("finds name, name@2x, name@3x with any decodable extension, in the preferred order; sets the scale")
    func lookup() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let coders = ImageCoderRegistry.shared
        func write(_ file: String, width: Int) throws {
            let data = try coders.encode(
                Image(buffer: try Fixtures.gradient(width: width, height: 4)), as: ImageFormat(fileExtension: PathName.pathExtension(file)) ?? .png)
            try data.write(to: dir.appendingPathComponent(file))
        }
        try write("icon.png", width: 10)
        try write("icon@2x.png", width: 20)
        try write("icon@3x.webp", width: 30)
        try write("photo@2x.jpg", width: 16)

        let one = try #require(try Image.named("icon", in: dir))
        #expect(one.scale == 1 && one.pixelSize.width == 10)
        let three = try #require(try Image.named("icon", in: dir, preferredScales: [3, 2, 1]))
        #expect(three.scale == 3 && three.pixelSize.width == 30 && three.format == .webp)
        // Only @2x exists: found through the other preferred scales, with scale 2.
        let photo = try #require(try Image.named("photo", in: dir))
        #expect(photo.scale == 2 && photo.format == .jpeg)
        // An explicit extension or scale suffix is taken as given.
        #expect(try Image.named("icon@2x.png", in: dir)?.pixelSize.width == 20)
        #expect(try Image.named("icon@2x", in: dir)?.scale == 2)
        #expect(try Image.named("icon.webp", in: dir)?.scale == 3)  // the extension limits, the scales still vary
        #expect(try Image.named("icon.gif", in: dir) == nil)
        #expect(try Image.named("missing", in: dir) == nil)
        // A damaged file is an error, not a silent nil.
        try Data("not an image".utf8).write(to: dir.appendingPathComponent("broken.png"))
        #expect(throws: ImageCodingError.self) { _ = try Image.named("broken", in: dir) }
    }
}
