// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import ImagoCoders
public import ImagoCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Faces in an image, through OpenCV's cascade classifier (Viola–Jones, the detector thumbor
/// uses), loaded on first use: Imago's small `libImagoFaceDetector` library links OpenCV and is
/// opened only when a face is first looked for, so a process that never does never maps OpenCV.
///
/// The search runs on a gray copy shrunk to ``Configuration/maxDimension`` pixels a side, from
/// the largest face sizes to the smallest, and stops at ``Configuration/timeLimit`` of CPU time
/// with what it found: a time-limited search misses the smallest faces first, and finds the same
/// faces however busy the machine is.
///
/// ```swift
/// let faces = try FaceDetector().faces(in: photo.buffer)
/// let origin = ImageAnalysis.objectCropOrigin(faces, width: 400, height: 400,
///                                             imageWidth: photo.buffer.width, imageHeight: photo.buffer.height)
/// ```
///
/// Needs Debian's `libopencv-objdetect406` and the cascades of `opencv-data`
/// (`scripts/bootstrap` installs them; the Debian package of Imago recommends them).
public struct FaceDetector: Sendable {
    /// How faces are looked for.
    public struct Configuration: Sendable, Hashable {
        /// OpenCV's cascade. Default: `haarcascade_frontalface_default.xml` of Debian's
        /// `opencv-data`, the frontal-face cascade.
        public var cascadePath: String
        /// The gray copy searched is at most this many pixels a side. Default 800.
        public var maxDimension: Int
        /// The smallest face looked for, in the searched copy's pixels. Default 20.
        public var minFaceSize: Int
        /// How many overlapping windows must agree on a face. Default 4: fewer finds more faces
        /// and more that are not.
        public var minNeighbors: Int
        /// Each face size searched is this many times the one below it. Default 1.1, OpenCV's
        /// default: 1.2 takes half the time and misses more, 1.15 finds more that are not faces.
        public var scaleFactor: Double
        /// The most CPU time (the searching thread's, not the wall clock's, so that a busy machine
        /// finds the same faces) a search takes before it returns what it found. Default 1 s:
        /// an 800×600 search takes about 340 ms of one core of a 2026 server.
        public var timeLimit: Duration
        /// The library's file, or `nil` (the default) to look for `libImagoFaceDetector.so`
        /// beside the executable, then in `../lib/imago` from it, then where the dynamic
        /// loader looks.
        public var libraryPath: String?

        /// Creates a configuration; every parameter has the default described on its property.
        public init(
            cascadePath: String = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml",
            maxDimension: Int = 800, minFaceSize: Int = 20, minNeighbors: Int = 4, scaleFactor: Double = 1.1,
            timeLimit: Duration = .seconds(1), libraryPath: String? = nil
        ) {
            self.scaleFactor = scaleFactor
            self.cascadePath = cascadePath
            self.maxDimension = maxDimension
            self.minFaceSize = minFaceSize
            self.minNeighbors = minNeighbors
            self.timeLimit = timeLimit
            self.libraryPath = libraryPath
        }
    }

    /// The most faces reported for one image: 64.
    public static let maxFaces = 64

    /// The configuration.
    public let configuration: Configuration

    /// Creates a detector; nothing is loaded until the first search.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Whether the library and the cascade can be loaded (the first call loads them).
    public var isAvailable: Bool {
        do {
            let cascade = try Self.cascades.checkOut(configuration)
            Self.cascades.checkIn(cascade, configuration.cascadePath)
            return true
        } catch {
            return false
        }
    }

    /// The faces in `buffer`, largest first, as boxes in `buffer`'s pixels.
    ///
    /// - Throws: `ImageCodingError.unsupportedFeature(_:_:)` when the library, OpenCV or the
    ///   cascade cannot be loaded (the message says which); `ImageCodingError.invalidArgument(_:)`
    ///   when OpenCV fails on the image.
    public func faces(in buffer: PixelBuffer) throws -> [DetectedObject] {
        let w = buffer.width, h = buffer.height
        guard w > 0, h > 0 else { return [] }
        let limit = max(16, configuration.maxDimension)
        let scale = min(1, Double(limit) / Double(max(w, h)))
        let sw = max(1, Int((Double(w) * scale).rounded())), sh = max(1, Int((Double(h) * scale).rounded()))
        let small = scale < 1 ? try Resampler.resize(buffer, to: PixelSize(width: sw, height: sh), quality: .bilinear) : buffer
        let gray = ImageAnalysis.luminance(small)
        let cascade = try Self.cascades.checkOut(configuration)
        defer { Self.cascades.checkIn(cascade, configuration.cascadePath) }
        var boxes = [Int32](repeating: 0, count: Self.maxFaces * 5)
        var timedOut: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let c = configuration.timeLimit.components
        let milliseconds = Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15
        let factor = configuration.scaleFactor
        let step = factor.isFinite ? min(4, max(1.01, factor)) : 1.2
        let found = gray.withUnsafeBufferPointer { g in
            boxes.withUnsafeMutableBufferPointer { b in
                message.withUnsafeMutableBufferPointer { m in
                    imago_faces_detect(
                        cascade.pointer, g.baseAddress, Int32(sw), Int32(sh), Int32(sw), Int32(clamping: max(1, configuration.minFaceSize)),
                        Int32(clamping: max(1, configuration.minNeighbors)), step, max(1, milliseconds), b.baseAddress, Int32(Self.maxFaces),
                        &timedOut, m.baseAddress, m.count)
                }
            }
        }
        guard found >= 0 else {
            throw ImageCodingError.invalidArgument("face detection failed: \(Self.text(message))")
        }
        var faces: [DetectedObject] = []
        for i in 0..<min(Int(found), Self.maxFaces) {
            let n = Double(boxes[i * 5 + 4])
            let box = DetectedObject(
                className: "face", x: Int(boxes[i * 5]), y: Int(boxes[i * 5 + 1]), width: Int(boxes[i * 5 + 2]),
                height: Int(boxes[i * 5 + 3]), confidence: n / (n + 3))
            var mapped = box.mapped(scale: 1 / scale)
            mapped.x = max(0, mapped.x)
            mapped.y = max(0, mapped.y)
            mapped.width = min(mapped.width, w - mapped.x)
            mapped.height = min(mapped.height, h - mapped.y)
            faces.append(mapped)
        }
        return faces.sorted { $0.area > $1.area }
    }

    static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Loaded cascades, kept for reuse: OpenCV reads a cascade's XML in tens of milliseconds,
    /// and one cascade serves one search at a time.
    static let cascades = CascadePool()
}

/// One loaded cascade (an opaque pointer of the library's).
struct LoadedCascade: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// The idle cascades by file, and the library opened once.
final class CascadePool: Sendable {
    private let idle = Mutex<[String: [LoadedCascade]]>([:])
    private let library = Mutex<String?>(nil)

    /// At most this many idle cascades are kept per file.
    static let keep = 8

    func checkOut(_ configuration: FaceDetector.Configuration) throws -> LoadedCascade {
        try open(configuration.libraryPath)
        if let cascade = idle.withLock({ $0[configuration.cascadePath]?.popLast() }) { return cascade }
        guard !configuration.cascadePath.utf8.contains(0) else { throw ImageCodingError.invalidArgument("a cascade path has no NUL") }
        var message = [CChar](repeating: 0, count: 256)
        let pointer = message.withUnsafeMutableBufferPointer { m in
            imago_faces_cascade_load(configuration.cascadePath, m.baseAddress, m.count)
        }
        guard let pointer else {
            throw ImageCodingError.unsupportedFeature(
                .png, "the face cascade \(configuration.cascadePath) cannot be read (\(FaceDetector.text(message))); install opencv-data")
        }
        return LoadedCascade(pointer: pointer)
    }

    func checkIn(_ cascade: LoadedCascade, _ path: String) {
        let kept = idle.withLock { pool -> Bool in
            guard pool[path, default: []].count < Self.keep else { return false }
            pool[path, default: []].append(cascade)
            return true
        }
        if !kept { imago_faces_cascade_free(cascade.pointer) }
    }

    private func open(_ explicit: String?) throws {
        try library.withLock { opened in
            if opened != nil { return }
            let found = ImagoLibraries.open("libImagoFaceDetector.so", explicit: explicit) { path in
                var message = [CChar](repeating: 0, count: 512)
                let ok = message.withUnsafeMutableBufferPointer { m in imago_faces_open(path, m.baseAddress, m.count) }
                return ok != 0 ? nil : FaceDetector.text(message)
            }
            switch found {
            case .success(let path): opened = path
            case .failure(let failure):
                throw ImageCodingError.unsupportedFeature(
                    .png, "face detection needs libImagoFaceDetector and OpenCV (libopencv-objdetect406): \(failure.message)")
            }
        }
    }
}
