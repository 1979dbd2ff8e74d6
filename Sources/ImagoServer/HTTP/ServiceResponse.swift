// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import HTTPTypes
public import ImagoCoders
public import NIOCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What ``ImageService`` answers: a status, headers and a body, independent of the HTTP server
/// that sends them (``ImageService/addRoutes(to:at:operations:middleware:)`` hands them to
/// Hummingbird, streaming a file body from where it lies).
public struct ServiceResponse: Sendable {
    /// A response's body.
    public enum Body: Sendable {
        /// Bytes in a buffer (empty for 304 and `HEAD`).
        case bytes(ByteBuffer)
        /// A file sent as it is (a cached source answered raw or unprocessed), read a piece at a
        /// time as the client takes it.
        // Indirect, as `ImageRequest.Source.file`: one layout wherever the enum is copied.
        indirect case file(ImageFile)
        /// Part of a file (the bytes in the range), for a `206 Partial Content`.
        indirect case filePart(ImageFile, Range<Int>)

        /// Its size in bytes.
        public var count: Int {
            switch self {
            case .bytes(let buffer): buffer.readableBytes
            case .file(let file): file.size
            case .filePart(_, let range): range.count
            }
        }
    }

    /// The status.
    public var status: HTTPResponse.Status
    /// The headers, `Content-Type` and `Cache-Control` among them; `Content-Length` is the server's.
    public var headers: HTTPFields
    /// The body.
    public var body: Body

    /// Creates a response; the body defaults to none.
    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: Body = .bytes(ByteBuffer())) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body's size in bytes.
    public var bodyCount: Int { body.count }

    /// The whole body in memory (a file read): for callers that want bytes, such as tests.
    ///
    /// - Throws: `CocoaError(.fileReadUnknown)` when the file cannot be read.
    public func bodyData() throws -> Data {
        switch body {
        case .bytes(let buffer): Data(buffer.readableBytesView)
        case .file(let file): try file.contents()
        case .filePart(let file, let range): try file.read(at: range.lowerBound, maxLength: range.count)
        }
    }
}

extension HTTPField.Name {
    static let xRequestID = known("X-Request-ID")
    static let xContentTypeOptions = known("X-Content-Type-Options")
    static let serverTiming = known("Server-Timing")
    static let fallbackImage = known("Fallback-Image")
    static let acceptCH = known("Accept-CH")
    static let link = known("Link")
    static let xOriginWidth = known("X-Origin-Width")
    static let xOriginHeight = known("X-Origin-Height")
    static let xOriginContentLength = known("X-Origin-Content-Length")
    static let xResultWidth = known("X-Result-Width")
    static let xResultHeight = known("X-Result-Height")
    static let host = known("Host")
    static let xForwardedHost = known("X-Forwarded-Host")

    /// The field named `name`, a valid token written in this file: the one place a name that
    /// does not parse would stop the process.
    package static func known(_ name: StaticString) -> HTTPField.Name {
        guard let field = HTTPField.Name("\(name)") else { preconditionFailure("'\(name)' is not a field name") }
        return field
    }
}
