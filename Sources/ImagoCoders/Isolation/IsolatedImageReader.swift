// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoSandbox
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a worker's reply file into an ``ImageInfo`` or an ``Image``, trusting nothing in it:
/// every offset and length must lie within the file, every frame within the request's limits,
/// before anything is allocated. A reply that breaks a rule throws ``Malformed``, and the pool
/// replaces the worker that sent it.
struct IsolatedImageReader {
    let fd: Int32
    /// The worker whose memory holds the pixels of a direct reply; `nil` when the host does not
    /// read them there.
    let pid: pid_t?
    let size: Int
    let format: ImageFormat
    let limits: DecodingLimits

    /// The largest metadata blob (ICC, EXIF, XMP) a reply may carry.
    static let maxBlob = 64 << 20

    /// Where a reply's bytes are: its file, and the worker's memory when the host reads pixels
    /// there.
    struct Origin {
        var fd: Int32
        var pid: pid_t?
    }

    init(_ origin: Origin, format: ImageFormat, limits: DecodingLimits) throws {
        let size = imago_file_size(origin.fd)
        guard size >= 0 else { throw Malformed(what: "a reply file that cannot be read (errno \(-size))") }
        self.fd = origin.fd
        self.pid = origin.pid
        self.size = Int(size)
        self.format = format
        self.limits = limits
    }

    /// The header the reply names.
    func header<T: Decodable>(_ type: T.Type, _ reply: IsolationWire.Reply) throws -> T {
        guard let offset = reply.headerOffset, let length = reply.headerLength, length <= Self.maxBlob else { throw broken("no header") }
        let bytes = try blob(IsolationWire.Blob(offset: offset, length: length))
        do {
            return try IsolationWire.decode(type, from: bytes)
        } catch {
            throw broken("a header that does not parse")
        }
    }

    /// The document a sanitising reply holds (at most ``maxBlob`` bytes, within the reply).
    func document(_ reply: IsolationWire.Reply) throws -> Data {
        try blob(try header(IsolationWire.Blob.self, reply))
    }

    /// The fields a metadata reply holds.
    func metadataFields(_ reply: IsolationWire.Reply) throws -> IsolationWire.MetadataFields {
        let fields = try header(IsolationWire.MetadataFields.self, reply)
        guard fields.groups.allSatisfy({ group in group.fields.allSatisfy { ($0.text == nil) != ($0.list == nil) } }) else {
            throw broken("a metadata field with neither a text nor a list, or both")
        }
        return fields
    }

    /// The video frame the reply holds, and the stream's facts.
    func videoFrame(_ reply: IsolationWire.Reply) throws -> (image: Image, info: VideoFrames.Info) {
        let h = try header(IsolationWire.VideoHeader.self, reply)
        guard h.width > 0, h.height > 0, h.tags.count <= 1_000 else { throw broken("a video of \(h.width)x\(h.height)") }
        let info = VideoFrames.Info(
            duration: h.duration.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }, size: PixelSize(width: h.width, height: h.height),
            codec: String(h.codec.prefix(64)), container: String(h.container.prefix(256)), tags: h.tags)
        return (try image(h.image), info)
    }

    /// The image the reply holds.
    func image(_ reply: IsolationWire.Reply) throws -> Image {
        try image(try header(IsolationWire.ImageHeader.self, reply))
    }

    private func image(_ h: IsolationWire.ImageHeader) throws -> Image {
        guard !h.frames.isEmpty, h.frames.count <= max(1, limits.maxFrames) else { throw broken("\(h.frames.count) frames") }
        var total = 0
        for f in h.frames {
            let (pixels, overflow) = f.width.multipliedReportingOverflow(by: f.height)
            guard !overflow, pixels <= limits.maxPixels else { throw broken("a \(f.width)x\(f.height) frame past the limits") }
            total = total.addingReportingOverflow(pixels).partialValue
            guard total <= limits.maxTotalFramePixels else { throw broken("frames past the limit of total pixels") }
        }
        let frames = try h.frames.map { ImageFrame(buffer: try buffer($0), duration: $0.duration.isFinite ? max(0, $0.duration) : 0) }
        var metadata = ImageMetadata(iccProfile: try h.iccProfile.map(blob), exif: try h.exif.map(blob))
        if let map = h.gainMap {
            guard map.width.multipliedReportingOverflow(by: map.height).partialValue <= limits.maxPixels else { throw broken("a gain map past the limits") }
            metadata.gainMap = GainMap(pixels: try buffer(map), xmp: try h.gainMapXMP.map(blob), iso21496: try h.gainMapISO.map(blob))
        }
        do {
            return try Image(
                frames: frames, loopCount: max(0, h.loopCount), orientation: h.orientation, scale: h.scale.isFinite && h.scale > 0 ? h.scale : 1,
                format: h.format, metadata: metadata, hasAlpha: h.hasAlpha)
        } catch {
            throw broken("frames of different sizes")
        }
    }

    private func buffer(_ f: IsolationWire.Frame) throws -> PixelBuffer {
        let layout: (bytesPerRow: Int, byteCount: Int)
        do {
            layout = try PixelBuffer.layout(width: f.width, height: f.height, format: f.format, bytesPerRow: f.bytesPerRow)
        } catch {
            throw broken("a frame of \(f.width)x\(f.height)")
        }
        if let address = f.address {
            guard let pid, f.bytes.length == layout.byteCount else { throw broken("pixels in the worker's memory, not asked for") }
            return try PixelBuffer(uninitializedWidth: f.width, height: f.height, format: f.format, bytesPerRow: f.bytesPerRow) { raw in
                let status = imago_read_process(pid, address, raw.baseAddress, raw.count)
                guard status == 0 else { throw broken("pixels that cannot be read in the worker (errno \(-status))") }
            }
        }
        guard f.bytes.length == layout.byteCount, within(f.bytes) else { throw broken("pixels outside the reply") }
        return try PixelBuffer(uninitializedWidth: f.width, height: f.height, format: f.format, bytesPerRow: f.bytesPerRow) { raw in
            let status = imago_read_all(fd, raw.baseAddress, raw.count, Int64(f.bytes.offset))
            guard status == 0 else { throw broken("pixels that cannot be read (errno \(-status))") }
        }
    }

    private func blob(_ b: IsolationWire.Blob) throws -> Data {
        guard b.length <= Self.maxBlob, within(b) else { throw broken("a blob outside the reply") }
        var data = Data(count: b.length)
        let status = data.withUnsafeMutableBytes { imago_read_all(fd, $0.baseAddress, $0.count, Int64(b.offset)) }
        guard status == 0 else { throw broken("a blob that cannot be read") }
        return data
    }

    private func within(_ b: IsolationWire.Blob) -> Bool {
        let (end, overflow) = b.offset.addingReportingOverflow(b.length)
        return b.offset >= 0 && b.length >= 0 && !overflow && end <= size
    }

    /// A reply that breaks the protocol: what is wrong with it.
    struct Malformed: Error {
        var what: String
    }

    private func broken(_ what: String) -> Malformed {
        Malformed(what: what)
    }
}
