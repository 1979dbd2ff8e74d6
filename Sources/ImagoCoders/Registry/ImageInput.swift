// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One encoded image to decode, whatever holds it: bytes in memory or an open file. Its format is
/// told and its header read once, however many steps ask: the planner that chooses how to decode,
/// the decoder, a caller deciding an output format.
///
/// A file is read where it lies: JPEG and PNG stills a piece at a time through
/// ``makeByteSource()``, other formats from ``contents()``, which maps a disk-cache entry rather
/// than copying it and is made once.
///
/// ```swift
/// let input = try ImageInput(contentsOf: URL(fileURLWithPath: "photo.jpg"))
/// let info = try input.info()             // the header, read once
/// let thumb = try Thumbnailer.thumbnail(of: input, fitting: PixelSize(width: 256, height: 256))
/// ```
public final class ImageInput: Sendable {
    /// Where the bytes are.
    public enum Storage: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// An open file, read at offsets.
        // Indirect, as `ImageRequest.Source.file`: one layout wherever the enum is copied.
        indirect case file(ImageFile)
    }

    /// How much of a file is read to tell its format: 4 KiB, enough for every header the sniffer
    /// reads; a PNG's first 64 KiB, so that an APNG's chunk walk to its first `IDAT` (past a
    /// large `iCCP`, say) is covered in all but pathological files. Requests waiting for a worker
    /// each hold one, so it is kept small.
    package static let headLength = 1 << 12
    static let pngHeadLength = 1 << 16

    /// The bytes, or the file holding them.
    public let storage: Storage

    private struct Cache {
        var head: Data?
        var format: ImageFormat??
        var info: (registry: ObjectIdentifier, info: ImageInfo)?
        var contents: Data?
    }

    private let cache = Mutex(Cache())

    /// An input of bytes in memory.
    public init(_ data: Data) {
        storage = .data(data)
    }

    /// An input of an open file, read where it lies.
    public init(_ file: ImageFile) {
        storage = .file(file)
    }

    /// Opens the file at `url` (a `file` URL) as an input, read where it lies; something that is
    /// not a regular file (a pipe, a device) is read whole instead.
    ///
    /// - Throws: `CocoaError` when the file cannot be opened or read (`.fileReadNoSuchFile`,
    ///   `.fileReadNoPermission`, `.fileReadUnknown`).
    public convenience init(contentsOf url: URL) throws {
        do {
            self.init(try ImageFile(path: url.path))
        } catch let error as CocoaError where error.code == .fileReadUnknown {
            self.init(try Data(contentsOf: url))
        }
    }

    /// The size in bytes.
    public var byteCount: Int {
        switch storage {
        case .data(let data): data.count
        case .file(let file): file.size
        }
    }

    /// The file, when the input is one.
    public var file: ImageFile? {
        if case .file(let file) = storage { return file }
        return nil
    }

    /// The first bytes: all of them in memory, or the first `headLength` of a file (64 KiB of a
    /// PNG), read once.
    ///
    /// - Throws: the file's read errors.
    public func head() throws -> Data {
        switch storage {
        case .data(let data): return data
        case .file(let file):
            if let head = cache.withLock({ $0.head }) { return head }
            var head = try file.read(at: 0, maxLength: Self.headLength)
            if head.starts(with: [0x89, 0x50, 0x4E, 0x47]), file.size > head.count {
                head = try file.read(at: 0, maxLength: Self.pngHeadLength)
            }
            cache.withLock { $0.head = head }
            return head
        }
    }

    /// The format its first bytes name, told once; `nil` for data no sniffer knows.
    ///
    /// - Throws: the file's read errors.
    public func format() throws -> ImageFormat? {
        if let known = cache.withLock({ $0.format }) { return known }
        let format = ImageFormat(sniffing: try head())
        cache.withLock { $0.format = .some(format) }
        return format
    }

    /// The header's facts, read once (per registry) by the decoder of its format: for a file whose
    /// decoder streams (JPEG, PNG), only as much of the file as the header takes; for a format no
    /// decoder handles, what the container header states.
    ///
    /// - Throws: `ImageCodingError.emptyData`, `.unsupportedFormat(nil)` for data no sniffer
    ///   knows, the decoder's header errors, the file's read errors.
    public func info(coders: ImageCoderRegistry = .shared) throws -> ImageInfo {
        let registry = ObjectIdentifier(coders)
        if let known = cache.withLock({ $0.info }), known.registry == registry { return known.info }
        guard byteCount > 0 else { throw ImageCodingError.emptyData }
        guard let format = try format() else { throw ImageCodingError.unsupportedFormat(nil) }
        PipelineProbe.record(ProbeEvent.headerParse)
        let info: ImageInfo
        if let decoder = coders.decoder(for: format) {
            if case .file(let file) = storage, let streaming = decoder as? any StreamingImageDecoding {
                info = try streaming.info(of: file)
            } else if let png = decoder as? PNGCoder {
                info = try png.info(of: contents(), format: format)
            } else {
                info = try decoder.info(of: contents())
            }
        } else {
            info = try HeaderProbe.info(of: contents(), format: format)
        }
        cache.withLock { $0.info = (registry, info) }
        return info
    }

    /// All of the bytes: the data itself, or the file mapped (a disk-cache entry) or read, once;
    /// the input keeps them while it lives.
    ///
    /// - Throws: the file's read errors, or a read cut short (the file was truncated).
    public func contents() throws -> Data {
        switch storage {
        case .data(let data): return data
        case .file(let file):
            if let contents = cache.withLock({ $0.contents }) { return contents }
            let contents = try file.contents()
            cache.withLock { $0.contents = contents }
            return contents
        }
    }

    /// A reader from the first byte onwards, with a position of its own: the file a piece at a
    /// time, or slices of the data.
    public func makeByteSource() -> any ImageByteSource {
        switch storage {
        case .data(let data): DataByteSource(data)
        case .file(let file): file.makeByteSource()
        }
    }
}
