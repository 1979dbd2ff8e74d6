// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoCoders

@Suite("IMAGO_ISOLATED_FORMATS: one reader of the list for imago-server, imago and imago-fetch")
struct IsolationSelectionTests {
    typealias Selection = DecoderIsolation.Selection

    @Test("names are file extensions, case-insensitive, with spaces; video and none; the list is written back sorted")
    func parsing() throws {
        let s = try Selection(parsing: " PDF, tif ,jpg,heic,video")
        #expect(s.formats == [.pdf, .tiff, .jpeg, .heic] && s.video)
        #expect(s.description == "heic,jpeg,pdf,tiff,video")
        #expect(try Selection(parsing: s.description) == s)
        #expect(try Selection(parsing: "none") == .none && Selection.none.isEmpty && Selection.none.description == "none")
        #expect(try Selection(parsing: "").isEmpty)
        #expect(try Selection(parsing: "video") == Selection(formats: [], video: true))
        #expect(try Selection(parsing: Selection.default.description) == .default)
        #expect(Selection.default.formats == DecoderIsolation.defaultFormats && Selection.default.video)
    }

    @Test("an unknown name is refused, named; from the environment the variable is named too; unset is the default")
    func errors() throws {
        #expect(throws: ImageCodingError.invalidArgument("'bogus' is not an image format, video or none")) { try Selection(parsing: "png,bogus") }
        #expect(throws: ImageCodingError.invalidArgument("IMAGO_ISOLATED_FORMATS: 'x' is not an image format, video or none")) {
            try Selection(environment: ["IMAGO_ISOLATED_FORMATS": "x"])
        }
        #expect(try Selection(environment: [:]) == .default)
        #expect(try Selection(environment: [:], fallback: .commandLineDefault) == .commandLineDefault)
        #expect(try Selection(environment: ["IMAGO_ISOLATED_FORMATS": "png"], fallback: .commandLineDefault).formats == [.png])
        // The command line's default is the service's but PNG, whose rows stream in process.
        #expect(Selection.commandLineDefault.formats == Selection.default.formats.subtracting([.png]) && Selection.commandLineDefault.video)
        #expect(try Selection(environment: ["IMAGO_ISOLATED_FORMATS": "svg"]) == Selection(formats: [.svg], video: false))
    }

    @Test("a worker's warm-up samples of HEIC, AVIF and JPEG XL (made once, so that no encoder starts in a worker) decode to 2x2")
    func warmUpSamples() throws {
        for (format, text) in DecoderWorker.samples where ImageCoderRegistry.shared.canDecode(format) {
            let data = try #require(Data(base64Encoded: text), "\(format)")
            let image = try ImageCoderRegistry.shared.decode(data)
            #expect(image.format == format && image.pixelSize == PixelSize(width: 2, height: 2), "\(format)")
        }
        #expect(Set(DecoderWorker.samples.keys) == [.heic, .avif, .jxl])
    }
}
