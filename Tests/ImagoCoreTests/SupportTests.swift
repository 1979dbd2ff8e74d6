// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Synchronization
import Testing

/// Any JSON value, read and thrown away: for listing an object's keys.
private struct AnyJSONValue: Decodable {
    init(from decoder: any Decoder) throws {}
}

@Suite("Path names, percent coding, header reports, frame timing and pressure readings")
struct SupportTests {
    @Test("path extensions follow NSString: the last component's text after its last dot, never a leading or trailing dot")
    func extensions() {
        let cases: [(path: String, stem: String, ext: String)] = [
            ("a/b.png", "a/b", "png"), ("archive.tar.gz", "archive.tar", "gz"), ("a.b/c", "a.b/c", ""),
            (".hidden", ".hidden", ""), ("dir/.hidden", "dir/.hidden", ""), ("dir/.hidden.png", "dir/.hidden", "png"),
            ("name.", "name.", ""), ("", "", ""), ("/", "/", ""), ("https://x.test/i@2x.JPG", "https://x.test/i@2x", "JPG")
        ]
        for c in cases {
            let split = PathName.splitExtension(c.path)
            #expect(split.stem == c.stem && split.ext == c.ext, "\(c.path)")
            #expect(PathName.pathExtension(c.path) == c.ext && PathName.deletingPathExtension(c.path) == c.stem, "\(c.path)")
        }
    }

    @Test("hex digits, trimming, and percent-encoding for URL paths")
    func textHelpers() {
        #expect(PathName.hex([0x00, 0x0F, 0xA5, 0xFF] as [UInt8]) == "000fa5ff" && PathName.hex([UInt8]()) == "")
        #expect(PathName.hex(Data([0xDE, 0xAD])) == "dead")
        #expect(PathName.trimmed("  a b \t\r\n") == "a b" && PathName.trimmed(" \t ") == "" && PathName.trimmed("") == "")
        #expect(PathName.trimmed("x y".dropFirst()) == "y")
        #expect(PathName.percentEncodedPath("a b/ç?#%") == "a%20b/%C3%A7%3F%23%25")
        let allowed = "ABCXYZabcxyz0189-._~!$&'()*+,;=:@/"
        #expect(PathName.percentEncodedPath(allowed) == allowed)
    }

    @Test("the display scale is the @2x or @3x just before the extension of the last component, ignoring a URL's query")
    func displayScale() {
        let cases: [(String, Int)] = [
            ("icon@2x.png", 2), ("icon@3x.png", 3), ("icon.png", 1), ("icon@2x", 2), ("dir@3x/icon.png", 1),
            ("a/b/icon@3x.tar.gz", 1), ("https://x.test/a@3x.jpg?v=2", 3), ("https://x.test/a.jpg?name=b@2x.png", 1),
            ("https://x.test/a@2x.jpg#frag@3x", 2), ("icon@4x.png", 1), ("", 1)
        ]
        for (name, scale) in cases { #expect(PathName.displayScale(of: name) == scale, "\(name)") }
    }

    @Test("percent decoding turns %XX of either case into bytes and refuses a broken escape")
    func percentDecoding() {
        #expect(PercentEscapes.bytes("a%20b") == Array("a b".utf8))
        #expect(PercentEscapes.bytes("%4a%4A%7e") == Array("JJ~".utf8))
        #expect(PercentEscapes.bytes("%C3%A9é") == [0xC3, 0xA9, 0xC3, 0xA9])
        #expect(PercentEscapes.bytes("")?.isEmpty == true)
        for broken in ["%", "%4", "a%G1", "%%", "50%"] { #expect(PercentEscapes.bytes(broken) == nil, "\(broken)") }
        // Decoding undoes encoding, for any text.
        for text in ["plain", "a b/c?d#e%f", "ünïcødé ☃", "100%/50%", "\u{0}\u{7F}"] {
            #expect(PercentEscapes.bytes(PathName.percentEncodedPath(text)) == Array(text.utf8), "\(text)")
        }
    }

    @Test("data: URLs: base64 with spaces and without padding, percent-encoded text, the scheme in any case; broken ones refused")
    func dataURLs() throws {
        let cases: [(String, String, [String], [UInt8])] = [
            ("data:image/png;base64,AAEC", "image/png", [], [0, 1, 2]),
            ("data:;base64,AAE", "", [], [0, 1]),
            ("  DATA:image/jpg;name=a.jpg;BASE64,AA EC\n ", "image/jpg", ["name=a.jpg"], [0, 1, 2]),
            ("data:,a%20b%2Cc", "", [], Array("a b,c".utf8)),
            ("data:image/svg+xml;utf8,<svg/>", "image/svg+xml", ["utf8"], Array("<svg/>".utf8)),
            ("data:base64,AAEC", "base64", [], Array("AAEC".utf8)),
            ("data:image/png;base64,", "image/png", [], []),
            // A `;` before a combining mark still splits (as one Character it would not): the
            // fuzzer's find, which came back from base64String with its parameters joined.
            ("data:a; \u{652}b;base64,AA==", "a", ["\u{652}b"], [0])
        ]
        for (text, type, parameters, payload) in cases {
            let url = try #require(DataURL(text), "\(text)")
            #expect(url.mediaType == type && url.parameters == parameters && url.payload == payload, "\(text)")
            #expect(DataURL(url.base64String) == url, "\(text) written again")
        }
        for broken in ["data:image/png;base64", "http://x/,a", "data:,%4", "data:,%zz", "data:;base64,A!==", "dat:,a", ""] {
            #expect(DataURL(broken) == nil, "\(broken)")
        }
        // The byte limit is checked before the payload is decoded, and after.
        #expect(DataURL("data:,abcd", maxBytes: 4) != nil)
        #expect(DataURL("data:,abcde", maxBytes: 4) == nil)
        #expect(DataURL("data:;base64,AAECAw==", maxBytes: 4) != nil)
        #expect(DataURL("data:;base64,AAECAwQ=", maxBytes: 4) == nil)
        #expect(DataURL("data:;base64," + String(repeating: "A", count: 1000), maxBytes: 4) == nil)
    }

    @Test("a header report carries exactly the documented keys; ImageInfo survives a Codable round trip")
    func report() throws {
        let info = ImageInfo(
            format: .apng, width: 640, height: 480, orientation: .left, frameCount: 3, loopCount: 0,
            durations: [0.5, 0.25, 1], hasAlpha: true, bitDepth: 16, hasICCProfile: true, progressive: true,
            isGrayscale: true, pageCount: 1)
        let report = ImageInfo.Report(info)
        #expect(report.format == "apng" && report.mimeType == "image/apng" && report.orientation == 8)
        #expect(report.width == 640 && report.height == 480 && report.frameCount == 3 && report.loopCount == 0)
        #expect(report.durations == [0.5, 0.25, 1] && report.hasAlpha && report.bitDepth == 16 && report.hasICCProfile)
        #expect(report.progressive && report.pageCount == 1)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try encoder.encode(report)
        let keys = try JSONDecoder().decode([String: AnyJSONValue].self, from: json).keys
        #expect(
            Set(keys) == [
                "format", "mimeType", "width", "height", "orientation", "frameCount", "pageCount",
                "loopCount", "durations", "hasAlpha", "bitDepth", "hasICCProfile", "progressive"
            ])
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.hasPrefix("{\"bitDepth\":16,\"durations\":"), "keys sorted: \(text)")
        #expect(text.contains("\"orientation\":8,") && text.contains("\"width\":640}"), "\(text)")
        #expect(try JSONDecoder().decode(ImageInfo.self, from: JSONEncoder().encode(info)) == info)
        #expect(info.pixelSize == PixelSize(width: 640, height: 480))
        let still = ImageInfo(format: .jpeg, width: 1, height: 2)
        #expect(still.frameCount == 1 && still.loopCount == 1 && still.durations == [0] && !still.hasAlpha && still.bitDepth == 8)
    }

    @Test("displayed durations: 10 ms or less shows for 100 ms; the common duration is a GCD in whole milliseconds")
    func frameDurations() {
        #expect(FrameTiming.displayedDuration(0) == 0.1 && FrameTiming.displayedDuration(-1) == 0.1)
        #expect(FrameTiming.displayedDuration(0.010) == 0.1 && FrameTiming.displayedDuration(0.011) == 0.011)
        #expect(FrameTiming.displayedDuration(2.5) == 2.5)
        #expect(FrameTiming.commonDuration([]) == 0.1)
        #expect(FrameTiming.commonDuration([0.03, 0.045]) == 0.015)
        #expect(FrameTiming.commonDuration([0.0333, 0.0667]) == 0.001)
        #expect(FrameTiming.commonDuration([0, 0.0004]) == 0.001, "under half a millisecond counts as 1 ms")
        #expect(FrameTiming.commonDuration([0.2]) == 0.2)
    }

    @Test("uniform frames: over the limit the common duration doubles, yet no frame is ever dropped")
    func uniformLimit() throws {
        let buffers = try (0..<5).map { i in try PixelBuffer(width: 1, height: 1, format: .gray8, bytes: [UInt8(i)]) }
        let three = [
            ImageFrame(buffer: buffers[0], duration: 0.01), ImageFrame(buffer: buffers[1], duration: 0.02),
            ImageFrame(buffer: buffers[2], duration: 0.04)
        ]
        // 1 + 2 + 4 = 7 frames of 10 ms is over 4: at 20 ms it is 1 + 1 + 2.
        let (frames, duration) = FrameTiming.uniform(three, limit: 4)
        #expect(duration == 0.02 && frames.map(\.buffer) == [buffers[0], buffers[1], buffers[2], buffers[2]])
        #expect(FrameTiming.uniform(three).frames.count == 7)
        // A limit under the frame count still keeps every frame once.
        let five = (0..<5).map { ImageFrame(buffer: buffers[$0], duration: $0 % 2 == 0 ? 0.01 : 0.02) }
        let kept = FrameTiming.uniform(five, limit: 1)
        #expect(kept.frames.map(\.buffer) == buffers && kept.duration == 0.02)
    }

    @Test("collapsing merges only neighbours with identical pixels, summing their durations")
    func collapsing() throws {
        let a = try PixelBuffer(width: 1, height: 1, format: .gray8, bytes: [1])
        let b = try PixelBuffer(width: 1, height: 1, format: .gray8, bytes: [2])
        let frames = [
            ImageFrame(buffer: a, duration: 0.25), ImageFrame(buffer: a, duration: 0.5), ImageFrame(buffer: b, duration: 1),
            ImageFrame(buffer: a, duration: 0.125)
        ]
        let out = FrameTiming.collapsingRepeats(frames)
        #expect(out.map(\.buffer) == [a, b, a] && out.map(\.duration) == [0.75, 1, 0.125])
        #expect(FrameTiming.collapsingRepeats([]).isEmpty)
        let gray = try PixelBuffer(width: 1, height: 1, format: .gray8, bytes: [1])
        #expect(FrameTiming.collapsingRepeats([ImageFrame(buffer: a), ImageFrame(buffer: gray.converted(to: .rgb8))]).count == 2)
    }

    @Test("pressure readings: PSI and cgroup thresholds at their exact boundaries, unreadable sources give none")
    func pressureReadings() {
        let psi = "some avg10=12.50 avg60=3.00 avg300=1.00 total=123456\nfull avg10=2.00 avg60=0.50 avg300=0.10 total=2345\n"
        #expect(MemoryPressureWatcher.psiLevel(text: psi, threshold: 12.5) == .warning)
        #expect(MemoryPressureWatcher.psiLevel(text: psi, threshold: 12.51) == .normal)
        #expect(MemoryPressureWatcher.psiLevel(text: psi, threshold: 2) == .critical)
        #expect(MemoryPressureWatcher.psiLevel(text: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0", threshold: 10) == .normal)
        #expect(MemoryPressureWatcher.psiLevel(text: "full avg10=50.00 avg60=0 avg300=0 total=0", threshold: 10) == nil)
        #expect(MemoryPressureWatcher.psiLevel(text: "some avg10=abc", threshold: 10) == nil)
        #expect(MemoryPressureWatcher.cgroupLevel(current: "899\n", max: "1000\n") == .normal)
        #expect(MemoryPressureWatcher.cgroupLevel(current: "900", max: "1000") == .warning)
        #expect(MemoryPressureWatcher.cgroupLevel(current: "949", max: "1000") == .warning)
        #expect(MemoryPressureWatcher.cgroupLevel(current: "950", max: "1000") == .critical)
        #expect(MemoryPressureWatcher.cgroupLevel(current: "900", max: "max\n") == nil)
        #expect(MemoryPressureWatcher.cgroupLevel(current: "900", max: "0") == nil)
        #expect(MemoryPressureWatcher.cgroupLevel(current: "", max: "1000") == nil)
        let missing = "/nonexistent-\(UUID().uuidString)"
        #expect(MemoryPressureWatcher.psiLevel(path: missing, threshold: 10) == nil)
        #expect(MemoryPressureWatcher.cgroupLevel(directory: missing) == nil)
        #expect(MemoryPressureLevel.normal < .warning && MemoryPressureLevel.warning < .critical)
    }

    @Test("a poll calls every handler at warning and above only, and remembers the level read")
    func pollHandlers() {
        let level = Mutex(MemoryPressureLevel.normal)
        let heard = Mutex<[String]>([])
        let watcher = MemoryPressureWatcher(source: .custom { level.withLock { $0 } })
        watcher.onPressure { l in heard.withLock { $0.append("a\(l.rawValue)") } }
        watcher.onPressure { l in heard.withLock { $0.append("b\(l.rawValue)") } }
        #expect(watcher.poll() == .normal && watcher.currentLevel == .normal)
        level.withLock { $0 = .critical }
        #expect(watcher.poll() == .critical && watcher.currentLevel == .critical)
        level.withLock { $0 = .warning }
        watcher.poll()
        level.withLock { $0 = .normal }
        watcher.poll()
        #expect(heard.withLock { $0 } == ["a2", "b2", "a1", "b1"] && watcher.currentLevel == .normal)
        let missing = MemoryPressureWatcher(source: .psi(path: "/nonexistent-\(UUID().uuidString)"))
        #expect(missing.poll() == .normal)
    }
}
