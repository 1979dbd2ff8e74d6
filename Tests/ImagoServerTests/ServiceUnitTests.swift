// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

@Suite("Service pieces: geometry, Accept, patterns, configuration")
struct ServiceUnitTests {
    func options(_ segments: String) throws -> ProcessingOptions {
        try ProcessingOptions(parsing: segments.split(separator: "/").map(String.init))
    }

    @Test("resize arithmetic in source pixels; the transformer gives the same result when the decoder already shrank the image")
    func resize() throws {
        let fit = ServiceGeometry(options: try options("rs:fit:100:100"))
        let fitted = fit.sizes(width: 400, height: 300)
        #expect(fitted.scaledWidth == 100 && fitted.scaledHeight == 75)
        let fill = ServiceGeometry(options: try options("rs:fill:100:100")).sizes(width: 400, height: 300)
        #expect(fill.scaledWidth == 133 && fill.scaledHeight == 100 && fill.resultCropWidth == 100 && fill.resultCropHeight == 100)
        // Decoded at 1/2 by shrink-on-load: the same plan from half the pixels.
        for path in ["rs:fit:100:100", "rs:fill:100:100/g:ea:10", "c:200:100:nowe:20:10/w:50"] {
            let transformer = ServiceTransformer(
                options: try options(path), autoRotate: true, sourceSize: PixelSize(width: 400, height: 300), flattenColor: nil,
                maxResultDimension: nil)
            let full = try transformer.plan(for: try PixelBuffer(width: 400, height: 300, format: .argb32Premultiplied))
            let half = try transformer.plan(for: try PixelBuffer(width: 200, height: 150, format: .argb32Premultiplied))
            #expect(full.resize == half.resize && full.fill.map { [$0.x, $0.y, $0.width, $0.height] } == half.fill.map { [$0.x, $0.y, $0.width, $0.height] })
            #expect(full.crop.map { [$0.x / 2, $0.y / 2, $0.width / 2, $0.height / 2] } == half.crop.map { [$0.x, $0.y, $0.width, $0.height] })
        }
        // The decode hint asks for no more than the resize needs.
        #expect(fit.decodeHint(sourceWidth: 4000, sourceHeight: 3000) == PixelSize(width: 100, height: 75))
        #expect(ServiceGeometry(options: try options("w:3000")).decodeHint(sourceWidth: 4000, sourceHeight: 3000) == nil)
        #expect(ServiceGeometry(options: try options("t:10/w:10")).decodeHint(sourceWidth: 4000, sourceHeight: 3000) == nil)
    }

    @Test(
        "one URL, one result size: a source shrunk on load by 1/2, 1/4 or 1/8 (each side rounded up on its own) plans the source's sizes",
        arguments: [(2259, 1506, "w:320"), (1653, 1102, "w:640"), (2775, 2081, "w:320"), (3024, 1701, "w:640"), (2573, 3860, "h:480/w:0")])
    func oddReductions(_ source: (Int, Int, String)) throws {
        let (w, h, path) = source
        let transformer = ServiceTransformer(
            options: try options(path), autoRotate: true, sourceSize: PixelSize(width: w, height: h), flattenColor: nil,
            maxResultDimension: nil)
        let whole = try transformer.plan(for: try PixelBuffer(width: w, height: h, format: .gray8)).resize
        #expect(whole != nil)
        for d in [2, 4, 8] {
            let reduced = try PixelBuffer(width: (w + d - 1) / d, height: (h + d - 1) / d, format: .gray8)
            #expect(try transformer.plan(for: reduced).resize == whole, "\(w)x\(h) \(path) at 1/\(d)")
        }
        // A frame that is not the whole source (a page of another shape) is measured as it is.
        let other = try transformer.plan(for: try PixelBuffer(width: w / 2, height: h / 4, format: .gray8)).resize
        #expect(other != nil && other != whole)
    }

    @Test("an animation's frames that repeat or change in part transform to what each frame alone transforms to")
    func incrementalFrames() throws {
        // Frames: a base, the same again, a corner changed, a middle band changed, all changed.
        var state: UInt32 = 5
        func noise(_ buffer: inout PixelBuffer, x0: Int, y0: Int, x1: Int, y1: Int) {
            let stride = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { p in
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        for c in 0..<3 {
                            state = state &* 1_664_525 &+ 1_013_904_223
                            p[y * stride + x * 4 + c] = UInt8(truncatingIfNeeded: state >> 24)
                        }
                        p[y * stride + x * 4 + PixelFormat.argbOffsets.a] = 255
                    }
                }
            }
        }
        var base = try PixelBuffer(width: 160, height: 120, format: .argb32Premultiplied)
        noise(&base, x0: 0, y0: 0, x1: 160, y1: 120)
        var frames = [base, base]
        var corner = base
        noise(&corner, x0: 150, y0: 110, x1: 160, y1: 120)
        frames.append(corner)
        var band = corner
        noise(&band, x0: 0, y0: 50, x1: 160, y1: 58)
        frames.append(band)
        var fresh = band
        noise(&fresh, x0: 0, y0: 0, x1: 160, y1: 120)
        frames.append(fresh)
        let image = try Image(frames: frames.map { ImageFrame(buffer: $0, duration: 0.1) }, loopCount: 0)
        for path in ["w:100", "rs:fill:50:50", "w:100/bl:2", "w:240", "c:80:60/w:50", "fl:true/w:90"] {
            let transformer = ServiceTransformer(
                options: try options(path), autoRotate: true, sourceSize: PixelSize(width: 160, height: 120),
                flattenColor: nil, maxResultDimension: nil)
            let out = try transformer.transform(image, animated: true)
            #expect(out.frameCount == frames.count)
            for (i, frame) in frames.enumerated() {
                let alone = try transformer.transform(frame)
                #expect(out.frames[i].buffer == alone, "\(path): frame \(i)")
            }
        }
    }

    @Test("gravity placement clamps inside the container")
    func placement() {
        #expect(ServiceGeometry.place(10, 10, in: 100, 50, gravity: .init(.southEast)) == (90, 40))
        // The middle is round-half-to-even of (free + 1) / 2, as imgproxy places it: 45.5 → 46.
        #expect(ServiceGeometry.place(10, 10, in: 100, 50, gravity: .init(.center)) == (46, 20))
        #expect(ServiceGeometry.place(10, 10, in: 100, 50, gravity: .init(.north, x: 5, y: 1000)) == (51, 40))
        #expect(ServiceGeometry.place(10, 10, in: 100, 50, gravity: .init(.focusPoint, x: 0, y: 1)) == (0, 40))
        #expect(ServiceGeometry.place(10, 10, in: 100, 50, gravity: .init(.west, x: 0.5, y: 0)) == (50, 20))
    }

    @Test("Accept: q-values, wildcards, explicit mentions")
    func accept() {
        let a = AcceptHeader("image/avif;q=0.9, image/webp ; q=0, image/*;q=0.5, */*;q=0.1")
        #expect(a.quality(of: "image/avif") == 0.9 && a.quality(of: "image/webp") == 0 && a.quality(of: "image/png") == 0.5)
        #expect(a.quality(of: "text/html") == 0.1)
        #expect(a.explicitlyAccepts("image/avif") && !a.explicitlyAccepts("image/webp") && !a.explicitlyAccepts("image/png"))
        #expect(AcceptHeader(nil).quality(of: "image/webp") == 0 && AcceptHeader("garbage,,;;").ranges.isEmpty)
    }

    @Test("configuration from the environment, with errors naming the variable")
    func configuration() throws {
        let c = try ServerConfiguration(environment: [
            "IMAGO_BIND": "[::1]:9000", "IMAGO_MAX_SRC_RESOLUTION": "12.5", "IMAGO_DOWNLOAD_TIMEOUT": "2.5",
            "IMAGO_ALLOWED_SOURCES": "https://a.example/, https://b.example/*", "IMAGO_FORMAT_QUALITY": "webp=70,avif=50",
            "IMAGO_PRESETS": "thumb=rs:fit:50:50/q:70,default=ar:1", "IMAGO_AUTO_WEBP": "yes", "IMAGO_TTL": "60"
        ])
        #expect(try c.http.bindAddress() == ("::1", 9000))
        #expect(c.security.maxSourceResolution == 12.5 && c.sources.downloadTimeout == .milliseconds(2500))
        #expect(c.security.allowedSources == ["https://a.example/", "https://b.example/*"])
        #expect(
            c.output.formatQuality == [.webp: 70, .avif: 50, .jxl: 77] && c.output.autoWebP && c.http.ttl == 60, "the named formats replace imgproxy's defaults"
        )
        #expect(c.urls.presets["thumb"] == ["rs:fit:50:50", "q:70"])
        for (name, value) in [
            ("IMAGO_QUALITY", "0"), ("IMAGO_SIGNATURE_SIZE", "33"), ("IMAGO_AUTO_AVIF", "maybe"),
            ("IMAGO_MAX_SRC_RESOLUTION", "-1"), ("IMAGO_FORMAT_QUALITY", "webp:70"), ("IMAGO_PRESETS", "=x"), ("IMAGO_PRESETS", "default=w:-1"),
            ("IMAGO_PRESETS", "a=w:1/blur"),
            ("IMAGO_PRESETS", "a=msr:3"), ("IMAGO_PRESETS_PATH", "/nonexistent/presets"),
            ("IMAGO_LOCAL_ROOT", "/nonexistent/folder"), ("IMAGO_LOCAL_ROOT", "/etc/hostname"), ("IMAGO_READ_REQUEST_TIMEOUT", "0"),
            ("IMAGO_MAX_CLIENTS", "0")
        ] {
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") { _ = try ServerConfiguration(environment: [name: value]) }
            do { _ = try ServerConfiguration(environment: [name: value]) } catch { #expect(error.variable == name) }
        }
        // imgproxy's preset rules: comments and blank entries skipped, a file of one per line.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imago-presets-\(UUID().uuidString)")
        try Data("# thumbnails\n\nsmall=rs:fit:10:10\n  big = w:900 \n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let p = try ServerConfiguration(environment: ["IMAGO_PRESETS_PATH": file.path, "IMAGO_PRESETS": "#x=w:1, ,hq=q:95"])
        #expect(p.urls.presets == ["small": ["rs:fit:10:10"], "big": ["w:900"], "hq": ["q:95"]])
        #expect(throws: Never.self) { _ = try ServerConfiguration(environment: ["IMAGO_PRESETS": "a=msr:3", "IMAGO_ALLOW_SECURITY_OPTIONS": "1"]) }
        #expect(ServerConfiguration().summary.count == ServerConfiguration.meanings.count)
        #expect(ServerConfiguration().summary.allSatisfy { ServerConfiguration.meanings[$0.0] != nil })
    }

    @Test("each setting's descriptor writes what it reads and shows what it wrote; names are unique, documented and flags")
    func descriptors() throws {
        let settings = ServerConfiguration.settings
        let names = settings.map(\.name)
        #expect(Set(names).count == names.count && names.allSatisfy { $0.hasPrefix("IMAGO_") })
        #expect(settings.allSatisfy { !$0.meaning.isEmpty && $0.flag.hasPrefix("--") })
        var changed = 0
        for setting in settings where setting.readBy == nil {
            let shown = setting.show(ServerConfiguration())
            // A value other than the default, that the setting takes: the opposite of a bool, a
            // small number in range.
            let candidates = shown == "true" ? ["false"] : shown == "false" ? ["true"] : Int(shown) != nil ? ["7", "3", "1"] : []
            for candidate in candidates where candidate != shown {
                var c = ServerConfiguration()
                guard (try? setting.read(EnvironmentReader(values: [setting.name: candidate]), &c)) != nil else { continue }
                #expect(setting.show(c) == candidate, "\(setting.name): wrote \(candidate), shows \(setting.show(c))")
                changed += 1
                break
            }
        }
        #expect(changed >= 55, "most settings are bools and numbers: \(changed)")
        // A group's members are read by its leader, which comes first.
        for setting in settings {
            guard let leader = setting.readBy else { continue }
            let at = try #require(names.firstIndex(of: leader), "\(setting.name) is read by \(leader), which is no setting")
            #expect(at < names.firstIndex(of: setting.name)!)
        }
        var s3 = ServerConfiguration()
        try s3.apply(["IMAGO_USE_S3": "1", "IMAGO_S3_ENDPOINT_USE_PATH_STYLE": "false", "IMAGO_S3_REGION": "eu-north-1", "HOME": "/nonexistent"])
        #expect(s3.summary.contains { $0 == ("IMAGO_S3_ENDPOINT_USE_PATH_STYLE", "false") } && s3.summary.contains { $0 == ("IMAGO_S3_REGION", "eu-north-1") })
        // Secrets never show.
        var secret = ServerConfiguration()
        try secret.apply(["IMAGO_KEY": "abcd", "IMAGO_SECRET": "hush", "IMAGO_PURGE_SECRET": "hush2"])
        #expect(!secret.summary.contains { $0.1.contains("abcd") || $0.1.contains("hush") })
    }

    @Test("IMGPROXY_ settings with an equivalent are read under that name; unknown and misspelt IMAGO_ ones are named")
    func migration() throws {
        let c = try ServerConfiguration(environment: [
            "IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f", "IMGPROXY_TIMEOUT": "7",
            "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true", "IMGPROXY_QUALITY": "70", "IMAGO_QUALITY": "60",
            "IMGPROXY_SO_REUSEPORT": "true", "IMAGO_SOMETHING_ELSE_ENTIRELY": "1", "IMGPROXY_MAX_RESULT_DIMENSION": "0", "PORT": "9999"
        ])
        #expect(c.urls.keys == "736563726574" && c.urls.salts == "68656c6c6f" && c.http.requestTimeout == .seconds(7) && c.security.allowLoopbackSources)
        #expect(c.output.quality == 60 && c.security.maxResultDimension == nil && c.http.bind == ":9999")
        #expect(c.warnings.contains { $0.contains("IMGPROXY_SO_REUSEPORT") })
        #expect(c.warnings.contains { $0.contains("IMAGO_SOMETHING_ELSE_ENTIRELY") })
        #expect(c.warnings.contains { $0.contains("IMGPROXY_QUALITY") && $0.contains("IMAGO_QUALITY") })
        for (name, value) in [("IMAGO_KYE", "00"), ("IMAGO_QUALTY", "80"), ("IMGPROXY_TRUSTED_SIGNATURES", "abc"), ("IMGPROXY_S3_ALLOWED_BUCKETS", "b")] {
            let error = #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: [name: value]) }
            #expect(error?.variable == name)
        }
        #expect(ServerConfiguration.distance("IMAGO_KYE", "IMAGO_KEY") == 1 && ServerConfiguration.distance("abc", "abc") == 0)
        // Every equivalent names a setting this version has.
        #expect(Set(ServerConfiguration.imgproxyEquivalents.values).isSubset(of: ServerConfiguration.knownNames))
    }

    @Test("output formats as imgproxy chooses them: the source's when preferred, else the first preferred that holds the result")
    func outputFormats() throws {
        func format(
            _ source: ImageFormat, alpha: Bool = false, frames: Int = 1, options: String = "", accept: String? = nil,
            _ configure: (inout ServerConfiguration) -> Void = { _ in }
        ) throws -> ImageFormat {
            var c = ServerConfiguration()
            configure(&c)
            let info = ImageInfo(format: source, width: 10, height: 10, frameCount: frames, hasAlpha: alpha)
            return try RenderPlan.format(info: info, options: try self.options(options), accept: accept, settings: c.renderSettings, coders: .shared)
        }
        #expect(try format(.jpeg) == .jpeg && format(.png, alpha: true) == .png && format(.gif, frames: 3) == .gif)
        #expect(try format(.webp) == .jpeg && format(.webp, alpha: true) == .png && format(.webp, frames: 4) == .gif)
        #expect(try format(.tiff) == .jpeg && format(.bmp) == .jpeg && format(.heic) == .jpeg && format(.svg, alpha: true) == .png)
        // Transparency the result needs: padding or extension without a background.
        #expect(try format(.webp, options: "pd:10") == .png && format(.webp, options: "pd:10/bg:fff") == .jpeg)
        #expect(try format(.webp, options: "rs:fit:20:20/ex:1") == .png)
        #expect(try format(.webp, options: "f:webp") == .webp)
        // Settings: the preferred list, keeping the source's format, negotiation.
        #expect(try format(.tiff, { $0.output.preferredFormats = [.webp, .png] }) == .webp)
        #expect(try format(.webp, frames: 4, { $0.output.keepSourceFormat = true }) == .webp && format(.tiff, { $0.output.keepSourceFormat = true }) == .tiff)
        #expect(try format(.jpeg, accept: "image/webp", { $0.output.autoWebP = true }) == .webp)
        #expect(try format(.jpeg, options: "f:png", accept: "image/webp", { $0.output.autoWebP = true }) == .png)
        #expect(try format(.jpeg, options: "f:png", accept: "image/webp", { $0.output.enforceWebP = true }) == .webp)
        #expect(try format(.jpeg, options: "f:png", accept: "image/png", { $0.output.enforceWebP = true }) == .png)
        if ImageCoderRegistry.shared.canEncode(.jxl) {
            #expect(
                try format(
                    .jpeg, accept: "image/jxl,image/webp",
                    {
                        $0.output.autoJXL = true
                        $0.output.autoWebP = true
                    }) == .jxl)
            #expect(
                try format(
                    .gif, frames: 3, accept: "image/jxl,image/webp",
                    {
                        $0.output.autoJXL = true
                        $0.output.autoWebP = true
                    }) == .webp)
        }
        #expect(throws: ServiceError.self) { try format(.jpeg, options: "f:pdf") }
    }

    @Test("values no image could have never crash the arithmetic: they are clamped, and a result too large is refused before it is made")
    func hugeValues() throws {
        let buffer = try Fixtures.gradient(width: 40, height: 30)
        for path in ["c:1e19:1e19", "g:no:1e19:-1e19/rs:fill:10:10", "t:-1e19", "ex:1:no:1e19:1e19/w:60/h:60", "g:fp:1:1/rs:fill:5:5"] {
            let t = ServiceTransformer(
                options: try options(path), autoRotate: true, sourceSize: PixelSize(width: 40, height: 30), flattenColor: nil,
                maxResultDimension: nil)
            #expect(try t.transform(buffer).width > 0, "\(path)")
        }
        // A threshold past every difference finds it all border: the image comes back whole, as
        // imgproxy's libvips leaves it, never a crash.
        let everything = ServiceTransformer(
            options: try options("t:1e19"), autoRotate: true, sourceSize: PixelSize(width: 40, height: 30), flattenColor: nil,
            maxResultDimension: nil)
        #expect(try everything.transform(buffer).size == buffer.size)
        for path in ["w:100/z:1e17/el:1", "w:100000/h:100000/el:1", "pd:100000/dpr:8/w:100000/el:1"] {
            let t = ServiceTransformer(
                options: try options(path), autoRotate: true, sourceSize: PixelSize(width: 40, height: 30), flattenColor: nil,
                maxResultDimension: nil)
            #expect(throws: ImageCodingError.self, "\(path)") { try t.plan(for: buffer) }
        }
        #expect(throws: ServiceURLError.self) { try options("pd:100001") }
        #expect(ServiceGeometry.clamped(.infinity) == 0 && ServiceGeometry.clamped(1e300) == 1 << 40)
    }

    @Test("keep_copyright: only the Copyright and Artist texts survive")
    func copyright() throws {
        let exif = ServiceOptionsTests.exif(copyright: "ACME Photo 2026")
        let kept = try #require(EXIF.keepingTextTags(of: exif))
        #expect(kept.range(of: Data("ACME Photo 2026".utf8)) != nil)
        #expect(EXIF.keepingTextTags(of: Data([0x49, 0x49, 42, 0, 200, 0, 0, 0])) == nil)
        #expect(EXIF.keepingTextTags(of: Data("garbage".utf8)) == nil)
    }
}
