// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Testing

/// imgproxy's processing test expectations (imgproxy v4, `processing/*_test.go`), as data: one row per sub-test that asserts
/// a result size. Nothing here runs imgproxy; the rows are facts about its behaviour, for Imago's own tests to replay.
///
/// - Image paths are relative to imgproxy's `testdata` folder (`test-images/...` is its `imgproxy/test-images` submodule).
/// - imgproxy's test options builder joins options from a Go map, so its URL order varies from run to run; `options` keeps
///   the order in which the Go code adds them. The order never matters to imgproxy.
/// - Every imgproxy test server runs with `IMGPROXY_ALLOW_SECURITY_OPTIONS=true` (needed by `max_result_dimension`),
///   `IMGPROXY_MAX_SRC_RESOLUTION=50`, `IMGPROXY_MAX_ANIMATION_FRAMES=100` and development errors on; rows name the
///   settings their own test changes and the ones they depend on.
/// - `crop`, `resultCrop` and `embed` come from tracing imgproxy's geometry code (a Python re-implementation that
///   reproduces every simulated size below), not from imgproxy's assertions; trim rows have none (they depend on pixels).
struct ImgproxyProcessingCase: Sendable, CustomTestStringConvertible {
    /// The Go file, test method and sub-test name as `go test` prints it,
    /// e.g. "processing/crop_test.go TestCrop/crop_gravity_ce_crop_50x50".
    let from: String
    /// The source image, relative to imgproxy's `testdata` folder.
    let image: String
    /// The source size as decoded (none of these sources carries an EXIF orientation).
    let sourceWidth: Int
    let sourceHeight: Int
    /// Whether the decoded source has an alpha channel.
    let sourceHasAlpha: Bool
    /// The processing options as imgproxy's test puts them in the URL.
    let options: String
    /// Settings by imgproxy environment name; paths are relative to imgproxy's `testdata` folder.
    let settings: [String: String]
    /// The result size imgproxy's test expects.
    let width: Int
    let height: Int
    /// Origin of the crop taken before resizing (`crop` option), in source pixels; nil when no crop happens.
    let crop: Origin?
    /// Origin of the crop to the requested size after resizing and rotating (fill, fill-down), in resized pixels; nil when none.
    let resultCrop: Origin?
    /// Where the resized image's top-left corner lands in the result after extend, extend_aspect_ratio and padding; nil when
    /// the image is not embedded.
    let embed: Origin?

    var testDescription: String { from }
}

/// A pixel position: x to the right, y down, from the top-left corner.
struct Origin: Sendable, Equatable {
    let x: Int
    let y: Int
}

/// The rows, grouped by Go test method; `all` and `more` together hold every row.
enum ImgproxyProcessingCases {
    /// processing_test.go: the resizing-type tables and the max_result_dimension table.
    static let all: [ImgproxyProcessingCase] = [
        rows("processing_test.go", "TestResizeToFit", geometry, resizeToFit),
        rows("processing_test.go", "TestResizeToFitEnlarge", geometry, resizeToFitEnlarge),
        rows("processing_test.go", "TestResizeToFitExtend", geometry, resizeToFitExtend),
        rows("processing_test.go", "TestResizeToFitExtendAR", geometry, resizeToFitExtendAR),
        rows("processing_test.go", "TestResizeToFill", geometry, resizeToFill),
        rows("processing_test.go", "TestResizeToFillEnlarge", geometry, resizeToFillEnlarge),
        rows("processing_test.go", "TestResizeToFillExtend", geometry, resizeToFillExtend),
        rows("processing_test.go", "TestResizeToFillExtendAR", geometry, resizeToFillExtendAR),
        rows("processing_test.go", "TestResizeToFillDown", geometry, resizeToFillDown),
        rows("processing_test.go", "TestResizeToFillDownEnlarge", geometry, resizeToFillDownEnlarge),
        rows("processing_test.go", "TestResizeToFillDownExtend", geometry, resizeToFillDownExtend),
        rows("processing_test.go", "TestResizeToFillDownExtendAR", geometry, resizeToFillDownExtendAR),
        rows("processing_test.go", "TestResultSizeLimit", geometry, settings: ["IMGPROXY_ALLOW_SECURITY_OPTIONS": "true"], resultSizeLimit)
    ].flatMap { $0 }

    /// A source image and what imgproxy's loader reports about it.
    struct Source {
        let path: String
        let width: Int
        let height: Int
        let hasAlpha: Bool

        init(_ path: String, _ width: Int, _ height: Int, alpha: Bool = false) {
            self.path = path
            self.width = width
            self.height = height
            self.hasAlpha = alpha
        }
    }

    /// One sub-test: its name, options, expected size and traced positions; `source` replaces the group's image and
    /// `settings` add to the group's.
    struct Row {
        let name: String
        let options: String
        let width: Int
        let height: Int
        let crop: Origin?
        let result: Origin?
        let embed: Origin?
        let source: Source?
        let settings: [String: String]

        init(
            _ name: String, _ options: String, _ width: Int, _ height: Int, crop: Origin? = nil, result: Origin? = nil,
            embed: Origin? = nil, source: Source? = nil, settings: [String: String] = [:]
        ) {
            self.name = name
            self.options = options
            self.width = width
            self.height = height
            self.crop = crop
            self.result = result
            self.embed = embed
            self.source = source
            self.settings = settings
        }
    }

    static func at(_ x: Int, _ y: Int) -> Origin { Origin(x: x, y: y) }

    /// Expands the rows of one Go test method.
    static func rows(
        _ file: String, _ test: String, _ source: Source, settings: [String: String] = [:], _ rows: [Row]
    ) -> [ImgproxyProcessingCase] {
        rows.map { row in
            let src = row.source ?? source
            return ImgproxyProcessingCase(
                from: "processing/\(file) \(test)/\(row.name)", image: src.path, sourceWidth: src.width,
                sourceHeight: src.height, sourceHasAlpha: src.hasAlpha, options: row.options,
                settings: settings.merging(row.settings) { $1 },
                width: row.width, height: row.height, crop: row.crop, resultCrop: row.result, embed: row.embed)
        }
    }

    // The source images (sizes and alpha read from the files).
    static let geometry = Source("geometry.png", 200, 100)
    static let trim1 = Source("trim1.png", 350, 250)
    static let trim2 = Source("trim2.png", 200, 200)
    static let trim3 = Source("trim3.png", 200, 200, alpha: true)
    static let bmp32Alpha = Source("test-images/bmp/32-bpp-with-alpha.bmp", 1080, 902, alpha: true)
    static let bmp24 = Source("test-images/bmp/24-bpp.bmp", 1080, 902)
    static let gif = Source("test-images/gif/gif.gif", 492, 229, alpha: true)
    static let png = Source("test-images/png/png.png", 400, 400)
    static let png8 = Source("test-images/png/8-bpp.png", 400, 400)
    static let png16 = Source("test-images/png/16-bpp.png", 600, 600)
    static let png16Linear = Source("test-images/png/16-bpp-linear.png", 600, 600)
    static let png8Gray = Source("test-images/png/8-bpp-grayscale.png", 150, 200)
    static let png16Gray = Source("test-images/png/16-bpp-grayscale.png", 1000, 1000)
    static let tiff8 = Source("test-images/tiff/8-bpp.tiff", 73, 43)
    static let tiff16 = Source("test-images/tiff/16-bpp.tiff", 73, 43)
    static let tiff8Gray = Source("test-images/tiff/8-bpp-grayscale.tiff", 277, 339)
    static let tiff16Gray = Source("test-images/tiff/16-bpp-grayscale.tiff", 73, 43)
    static let tiff32Linear = Source("test-images/tiff/32-bpp-linear.tiff", 333, 225)

    static let resizeToFit: [Row] = [
        Row("50x50", "resize:fit:50:50", 50, 25),
        Row("50x20", "resize:fit:50:20", 40, 20),
        Row("20x50", "resize:fit:20:50", 20, 10),
        Row("300x300", "resize:fit:300:300", 200, 100),
        Row("300x50", "resize:fit:300:50", 100, 50),
        Row("100x300", "resize:fit:100:300", 100, 50),
        Row("0x50", "resize:fit:0:50", 100, 50),
        Row("50x0", "resize:fit:50:0", 50, 25),
        Row("0x200", "resize:fit:0:200", 200, 100),
        Row("300x0", "resize:fit:300:0", 200, 100)
    ]

    static let resizeToFitEnlarge: [Row] = [
        Row("50x50", "resize:fit:50:50/enlarge:1", 50, 25),
        Row("50x20", "resize:fit:50:20/enlarge:1", 40, 20),
        Row("20x50", "resize:fit:20:50/enlarge:1", 20, 10),
        Row("300x300", "resize:fit:300:300/enlarge:1", 300, 150),
        Row("300x125", "resize:fit:300:125/enlarge:1", 250, 125),
        Row("250x300", "resize:fit:250:300/enlarge:1", 250, 125),
        Row("0x50", "resize:fit:0:50/enlarge:1", 100, 50),
        Row("50x0", "resize:fit:50:0/enlarge:1", 50, 25),
        Row("0x200", "resize:fit:0:200/enlarge:1", 400, 200),
        Row("300x0", "resize:fit:300:0/enlarge:1", 300, 150)
    ]

    static let resizeToFitExtend: [Row] = [
        Row("50x50", "resize:fit:50:50/extend:1", 50, 50, embed: at(0, 13)),
        Row("50x20", "resize:fit:50:20/extend:1", 50, 20, embed: at(6, 0)),
        Row("20x50", "resize:fit:20:50/extend:1", 20, 50, embed: at(0, 20)),
        Row("300x300", "resize:fit:300:300/extend:1", 300, 300, embed: at(50, 100)),
        Row("300x125", "resize:fit:300:125/extend:1", 300, 125, embed: at(50, 13)),
        Row("250x300", "resize:fit:250:300/extend:1", 250, 300, embed: at(26, 100)),
        Row("0x50", "resize:fit:0:50/extend:1", 100, 50),
        Row("50x0", "resize:fit:50:0/extend:1", 50, 25),
        Row("0x200", "resize:fit:0:200/extend:1", 200, 200, embed: at(0, 50)),
        Row("300x0", "resize:fit:300:0/extend:1", 300, 100, embed: at(50, 0))
    ]

    static let resizeToFitExtendAR: [Row] = [
        Row("50x50", "resize:fit:50:50/extend_aspect_ratio:1", 50, 50, embed: at(0, 13)),
        Row("50x20", "resize:fit:50:20/extend_aspect_ratio:1", 50, 20, embed: at(6, 0)),
        Row("20x50", "resize:fit:20:50/extend_aspect_ratio:1", 20, 50, embed: at(0, 20)),
        Row("300x300", "resize:fit:300:300/extend_aspect_ratio:1", 200, 200, embed: at(0, 50)),
        Row("300x125", "resize:fit:300:125/extend_aspect_ratio:1", 240, 100, embed: at(20, 0)),
        Row("250x500", "resize:fit:250:500/extend_aspect_ratio:1", 200, 400, embed: at(0, 150)),
        Row("0x50", "resize:fit:0:50/extend_aspect_ratio:1", 100, 50),
        Row("50x0", "resize:fit:50:0/extend_aspect_ratio:1", 50, 25),
        Row("0x200", "resize:fit:0:200/extend_aspect_ratio:1", 200, 100),
        Row("300x0", "resize:fit:300:0/extend_aspect_ratio:1", 200, 100)
    ]

    static let resizeToFill: [Row] = [
        Row("50x50", "resize:fill:50:50", 50, 50, result: at(26, 0)),
        Row("50x20", "resize:fill:50:20", 50, 20, result: at(0, 3)),
        Row("20x50", "resize:fill:20:50", 20, 50, result: at(40, 0)),
        Row("300x300", "resize:fill:300:300", 200, 100),
        Row("300x50", "resize:fill:300:50", 200, 50, result: at(0, 26)),
        Row("100x300", "resize:fill:100:300", 100, 100, result: at(50, 0)),
        Row("0x50", "resize:fill:0:50", 100, 50),
        Row("50x0", "resize:fill:50:0", 50, 25),
        Row("0x200", "resize:fill:0:200", 200, 100),
        Row("300x0", "resize:fill:300:0", 200, 100)
    ]

    static let resizeToFillEnlarge: [Row] = [
        Row("50x50", "resize:fill:50:50/enlarge:1", 50, 50, result: at(26, 0)),
        Row("50x20", "resize:fill:50:20/enlarge:1", 50, 20, result: at(0, 3)),
        Row("20x50", "resize:fill:20:50/enlarge:1", 20, 50, result: at(40, 0)),
        Row("300x300", "resize:fill:300:300/enlarge:1", 300, 300, result: at(150, 0)),
        Row("300x125", "resize:fill:300:125/enlarge:1", 300, 125, result: at(0, 13)),
        Row("250x300", "resize:fill:250:300/enlarge:1", 250, 300, result: at(176, 0)),
        Row("0x50", "resize:fill:0:50/enlarge:1", 100, 50),
        Row("50x0", "resize:fill:50:0/enlarge:1", 50, 25),
        Row("0x200", "resize:fill:0:200/enlarge:1", 400, 200),
        Row("300x0", "resize:fill:300:0/enlarge:1", 300, 150)
    ]

    static let resizeToFillExtend: [Row] = [
        Row("50x50", "resize:fill:50:50/extend:1", 50, 50, result: at(26, 0)),
        Row("50x20", "resize:fill:50:20/extend:1", 50, 20, result: at(0, 3)),
        Row("20x50", "resize:fill:20:50/extend:1", 20, 50, result: at(40, 0)),
        Row("300x300", "resize:fill:300:300/extend:1", 300, 300, embed: at(50, 100)),
        Row("300x125", "resize:fill:300:125/extend:1", 300, 125, embed: at(50, 13)),
        Row("250x300", "resize:fill:250:300/extend:1", 250, 300, embed: at(26, 100)),
        Row("300x50", "resize:fill:300:50/extend:1", 300, 50, result: at(0, 26), embed: at(50, 0)),
        Row("100x300", "resize:fill:100:300/extend:1", 100, 300, result: at(50, 0), embed: at(0, 100)),
        Row("0x50", "resize:fill:0:50/extend:1", 100, 50),
        Row("50x0", "resize:fill:50:0/extend:1", 50, 25),
        Row("0x200", "resize:fill:0:200/extend:1", 200, 200, embed: at(0, 50)),
        Row("300x0", "resize:fill:300:0/extend:1", 300, 100, embed: at(50, 0))
    ]

    static let resizeToFillExtendAR: [Row] = [
        Row("50x50", "resize:fill:50:50/extend_aspect_ratio:1", 50, 50, result: at(26, 0)),
        Row("50x20", "resize:fill:50:20/extend_aspect_ratio:1", 50, 20, result: at(0, 3)),
        Row("20x50", "resize:fill:20:50/extend_aspect_ratio:1", 20, 50, result: at(40, 0)),
        Row("300x300", "resize:fill:300:300/extend_aspect_ratio:1", 200, 200, embed: at(0, 50)),
        Row("300x125", "resize:fill:300:125/extend_aspect_ratio:1", 240, 100, embed: at(20, 0)),
        Row("250x500", "resize:fill:250:500/extend_aspect_ratio:1", 200, 400, embed: at(0, 150)),
        Row("300x50", "resize:fill:300:50/extend_aspect_ratio:1", 300, 50, result: at(0, 26), embed: at(50, 0)),
        Row("100x300", "resize:fill:100:300/extend_aspect_ratio:1", 100, 300, result: at(50, 0), embed: at(0, 100)),
        Row("0x50", "resize:fill:0:50/extend_aspect_ratio:1", 100, 50),
        Row("50x0", "resize:fill:50:0/extend_aspect_ratio:1", 50, 25),
        Row("0x200", "resize:fill:0:200/extend_aspect_ratio:1", 200, 100),
        Row("300x0", "resize:fill:300:0/extend_aspect_ratio:1", 200, 100)
    ]

    static let resizeToFillDown: [Row] = [
        Row("50x50", "resize:fill-down:50:50", 50, 50, result: at(26, 0)),
        Row("50x20", "resize:fill-down:50:20", 50, 20, result: at(0, 3)),
        Row("20x50", "resize:fill-down:20:50", 20, 50, result: at(40, 0)),
        Row("300x300", "resize:fill-down:300:300", 100, 100, result: at(50, 0)),
        Row("300x125", "resize:fill-down:300:125", 200, 83, result: at(0, 9)),
        Row("250x300", "resize:fill-down:250:300", 83, 100, result: at(59, 0)),
        Row("0x50", "resize:fill-down:0:50", 100, 50),
        Row("50x0", "resize:fill-down:50:0", 50, 25),
        Row("0x200", "resize:fill-down:0:200", 200, 100),
        Row("300x0", "resize:fill-down:300:0", 200, 100)
    ]

    static let resizeToFillDownEnlarge: [Row] = [
        Row("50x50", "resize:fill-down:50:50/enlarge:1", 50, 50, result: at(26, 0)),
        Row("50x20", "resize:fill-down:50:20/enlarge:1", 50, 20, result: at(0, 3)),
        Row("20x50", "resize:fill-down:20:50/enlarge:1", 20, 50, result: at(40, 0)),
        Row("300x300", "resize:fill-down:300:300/enlarge:1", 300, 300, result: at(150, 0)),
        Row("300x125", "resize:fill-down:300:125/enlarge:1", 300, 125, result: at(0, 13)),
        Row("250x300", "resize:fill-down:250:300/enlarge:1", 250, 300, result: at(176, 0)),
        Row("0x50", "resize:fill-down:0:50/enlarge:1", 100, 50),
        Row("50x0", "resize:fill-down:50:0/enlarge:1", 50, 25),
        Row("0x200", "resize:fill-down:0:200/enlarge:1", 400, 200),
        Row("300x0", "resize:fill-down:300:0/enlarge:1", 300, 150)
    ]

    static let resizeToFillDownExtend: [Row] = [
        Row("50x50", "resize:fill-down:50:50/extend:1", 50, 50, result: at(26, 0)),
        Row("50x20", "resize:fill-down:50:20/extend:1", 50, 20, result: at(0, 3)),
        Row("20x50", "resize:fill-down:20:50/extend:1", 20, 50, result: at(40, 0)),
        Row("300x300", "resize:fill-down:300:300/extend:1", 300, 300, result: at(50, 0), embed: at(100, 100)),
        Row("300x125", "resize:fill-down:300:125/extend:1", 300, 125, result: at(0, 9), embed: at(50, 22)),
        Row("250x300", "resize:fill-down:250:300/extend:1", 250, 300, result: at(59, 0), embed: at(84, 100)),
        Row("300x50", "resize:fill-down:300:50/extend:1", 300, 50, result: at(0, 34), embed: at(50, 9)),
        Row("100x300", "resize:fill-down:100:300/extend:1", 100, 300, result: at(84, 0), embed: at(34, 100)),
        Row("0x50", "resize:fill-down:0:50/extend:1", 100, 50),
        Row("50x0", "resize:fill-down:50:0/extend:1", 50, 25),
        Row("0x200", "resize:fill-down:0:200/extend:1", 200, 200, embed: at(0, 50)),
        Row("300x0", "resize:fill-down:300:0/extend:1", 300, 100, embed: at(50, 0))
    ]

    static let resizeToFillDownExtendAR: [Row] = [
        Row("50x50", "resize:fill-down:50:50/extend_aspect_ratio:1", 50, 50, result: at(26, 0)),
        Row("50x20", "resize:fill-down:50:20/extend_aspect_ratio:1", 50, 20, result: at(0, 3)),
        Row("20x50", "resize:fill-down:20:50/extend_aspect_ratio:1", 20, 50, result: at(40, 0)),
        Row("300x300", "resize:fill-down:300:300/extend_aspect_ratio:1", 100, 100, result: at(50, 0)),
        Row("300x125", "resize:fill-down:300:125/extend_aspect_ratio:1", 200, 83, result: at(0, 9)),
        Row("250x300", "resize:fill-down:250:300/extend_aspect_ratio:1", 83, 100, result: at(59, 0)),
        Row("0x50", "resize:fill-down:0:50/extend_aspect_ratio:1", 100, 50),
        Row("50x0", "resize:fill-down:50:0/extend_aspect_ratio:1", 50, 25),
        Row("0x200", "resize:fill-down:0:200/extend_aspect_ratio:1", 200, 100),
        Row("300x0", "resize:fill-down:300:0/extend_aspect_ratio:1", 200, 100)
    ]

    static let resultSizeLimit: [Row] = [
        Row("fit:100x100:limit:1000", "max_result_dimension:1000/resize:fit:100:100", 100, 50),
        Row("fit:100x100:limit:50", "max_result_dimension:50/resize:fit:100:100", 50, 25),
        Row("fit:0x0:limit:50", "max_result_dimension:50/resize:fit:0:0", 50, 25),
        Row("fit:0x100:limit:100", "max_result_dimension:100/resize:fit:0:100", 100, 50),
        Row("fit:150x0:limit:50", "max_result_dimension:50/resize:fit:150:0", 50, 25),
        Row("fit:1000x1000:limit:100", "max_result_dimension:100/resize:fit:1000:1000", 100, 50),
        Row("fit:1000x1000:limit:100_en:true", "max_result_dimension:100/resize:fit:1000:1000/enlarge:1", 100, 50),
        Row("fit:1000x2000:limit:100_ex:true", "max_result_dimension:100/resize:fit:1000:2000/extend:1", 50, 100, embed: at(20, 48)),
        Row("fit:1000x2000:limit:100_exAR:true", "max_result_dimension:100/resize:fit:1000:2000/extend_aspect_ratio:1", 50, 100, embed: at(0, 38)),
        Row("fit:100x150:limit:100_rotate:90", "max_result_dimension:100/resize:fit:100:150/rotate:90", 50, 100),
        Row("fit:0x0:limit:100_rotate:90", "max_result_dimension:100/resize:fit:0:0/rotate:90", 50, 100),
        Row(
            "fit:100x100:limit:200_padding:100x200x300x400", "max_result_dimension:200/resize:fit:100:100/padding:100:200:300:400", 200, 129,
            embed: at(114, 29)),
        Row("fill:100x100:limit:1000", "max_result_dimension:1000/resize:fill:100:100", 100, 100, result: at(50, 0)),
        Row("fill:100x100:limit:50", "max_result_dimension:50/resize:fill:100:100", 50, 50, result: at(26, 0)),
        Row("fill:1000x50:limit:50", "max_result_dimension:50/resize:fill:1000:50", 50, 13, result: at(0, 6)),
        Row("fill:100x1000:limit:50", "max_result_dimension:50/resize:fill:100:1000", 50, 50, result: at(26, 0)),
        Row("fill:0x0:limit:50", "max_result_dimension:50/resize:fill:0:0", 50, 25),
        Row("fill:0x100:limit:100", "max_result_dimension:100/resize:fill:0:100", 100, 50),
        Row("fill:150x0:limit:50", "max_result_dimension:50/resize:fill:150:0", 50, 25),
        Row("fill:1000x1000:limit:100", "max_result_dimension:100/resize:fill:1000:1000", 100, 50),
        Row("fill:1000x1000:limit:100_en:true", "max_result_dimension:100/resize:fill:1000:1000/enlarge:1", 100, 100, result: at(50, 0)),
        Row("fill:1000x2000:limit:100_ex:true", "max_result_dimension:100/resize:fill:1000:2000/extend:1", 50, 100, embed: at(20, 48)),
        Row("fill:1000x2000:limit:100_exAR:true", "max_result_dimension:100/resize:fill:1000:2000/extend_aspect_ratio:1", 50, 100, embed: at(0, 38)),
        Row("fill:100x150:limit:100_rotate:90", "max_result_dimension:100/resize:fill:100:150/rotate:90", 67, 100, result: at(0, 17)),
        Row("fill:0x0:limit:100_rotate:90", "max_result_dimension:100/resize:fill:0:0/rotate:90", 50, 100),
        Row(
            "fill:100x100:limit:200_padding:100x200x300x400", "max_result_dimension:200/resize:fill:100:100/padding:100:200:300:400", 200, 144,
            result: at(14, 0), embed: at(114, 29)),
        Row("fill-down:100x100:limit:1000", "max_result_dimension:1000/resize:fill-down:100:100", 100, 100, result: at(50, 0)),
        Row("fill-down:100x100:limit:50", "max_result_dimension:50/resize:fill-down:100:100", 50, 50, result: at(26, 0)),
        Row("fill-down:1000x50:limit:50", "max_result_dimension:50/resize:fill-down:1000:50", 50, 3, result: at(0, 12)),
        Row("fill-down:100x1000:limit:50", "max_result_dimension:50/resize:fill-down:100:1000", 5, 50, result: at(48, 0)),
        Row("fill-down:0x0:limit:50", "max_result_dimension:50/resize:fill-down:0:0", 50, 25),
        Row("fill-down:0x100:limit:100", "max_result_dimension:100/resize:fill-down:0:100", 100, 50),
        Row("fill-down:150x0:limit:50", "max_result_dimension:50/resize:fill-down:150:0", 50, 25),
        Row("fill-down:1000x1000:limit:100", "max_result_dimension:100/resize:fill-down:1000:1000", 100, 100, result: at(50, 0)),
        Row("fill-down:1000x1000:limit:100_en:true", "max_result_dimension:100/resize:fill-down:1000:1000/enlarge:1", 100, 100, result: at(50, 0)),
        Row(
            "fill-down:1000x2000:limit:100_ex:true", "max_result_dimension:100/resize:fill-down:1000:2000/extend:1", 50, 100, result: at(4, 0),
            embed: at(24, 48)),
        Row(
            "fill-down:1000x2000:limit:100_exAR:true", "max_result_dimension:100/resize:fill-down:1000:2000/extend_aspect_ratio:1", 50, 100,
            result: at(76, 0)),
        Row("fill-down:1000x1500:limit:100_rotate:90", "max_result_dimension:100/resize:fill-down:1000:1500/rotate:90", 67, 100, result: at(0, 17)),
        Row("fill-down:0x0:limit:100_rotate:90", "max_result_dimension:100/resize:fill-down:0:0/rotate:90", 50, 100),
        Row(
            "fill-down:100x100:limit:200_padding:100x200x300x400", "max_result_dimension:200/resize:fill-down:100:100/padding:100:200:300:400", 200,
            144, result: at(14, 0), embed: at(114, 29)),
        Row(
            "fill-down:1000x1000:limit:200_padding:100x200x300x400", "max_result_dimension:200/resize:fill-down:1000:1000/padding:100:200:300:400",
            200, 144, result: at(14, 0), embed: at(114, 29))
    ]
}
