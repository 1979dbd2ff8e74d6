#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCore
import ImagoServiceURL
import HTTPTypes

extension ImageService {
    /// A 200 with the image, or a 304 when `If-None-Match` already names it.
    func imageResponse(_ rendered: Rendered, contentType: String, etag: String, source: ServiceSource, options: ProcessingOptions,
                       varies: Bool, headers: HTTPFields) -> ServiceResponse {
        if Self.matches(headers[.ifNoneMatch], etag) { return notModified(etag: etag, source: source, varies: varies) }
        var fields = validatorFields(etag: etag, source: source, varies: varies)
        fields[.contentType] = contentType
        let attachment = options.returnAttachment ?? configuration.returnAttachment
        fields[.contentDisposition] = Self.contentDisposition(name: options.filename ?? source.baseName, format: rendered.format,
                                                              attachment: attachment)
        return ServiceResponse(status: .ok, headers: fields, body: rendered.data)
    }

    func notModified(etag: String, source: ServiceSource, varies: Bool) -> ServiceResponse {
        ServiceResponse(status: .notModified, headers: validatorFields(etag: etag, source: source, varies: varies))
    }

    private func validatorFields(etag: String, source: ServiceSource, varies: Bool) -> HTTPFields {
        var fields = HTTPFields()
        fields[.cacheControl] = configuration.ttl > 0 ? "public, max-age=\(configuration.ttl)" : "no-cache"
        fields[.eTag] = etag
        if let last = source.lastModified, !last.isEmpty, last.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            fields[.lastModified] = last
        }
        if varies { fields[.vary] = "Accept" }
        return fields
    }

    /// `inline; filename="name.ext"`, with an RFC 8187 `filename*` when the name is not ASCII.
    static func contentDisposition(name: String, format: ImageFormat, attachment: Bool) -> String {
        let base = baseName(name + ".x")
        let file = base + "." + (format.fileExtensions.first ?? format.rawValue)
        let ascii = String(file.unicodeScalars.map { $0.isASCII ? Character($0) : "_" })
        var value = "\(attachment ? "attachment" : "inline"); filename=\"\(ascii)\""
        if ascii != file {
            let encoded = file.utf8.map { b -> String in
                let c = Character(Unicode.Scalar(b))
                return b < 0x80 && (c.isLetter || c.isNumber || "-._~".contains(c)) ? String(c) : (b < 0x10 ? "%0" : "%") + String(b, radix: 16, uppercase: true)
            }.joined()
            value += "; filename*=UTF-8''\(encoded)"
        }
        return value
    }

    // MARK: Info

    /// The `/info` answer: the header's facts as `imago info --json` prints them, plus the
    /// source's size in bytes and its content type.
    func infoResponse(_ info: ImageInfo, source: ServiceSource, digest: UInt64, headers: HTTPFields) throws -> ServiceResponse {
        let etag = Self.etag(digest, "info")
        if Self.matches(headers[.ifNoneMatch], etag) { return notModified(etag: etag, source: source, varies: false) }
        let report = InfoReport(report: ImageInfo.Report(info), sourceBytes: source.count,
                                sourceContentType: source.contentType ?? info.format.mimeType)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body: Data
        do {
            body = try encoder.encode(report)
        } catch {
            throw ServiceError.unprocessable("the header cannot be reported")
        }
        var fields = validatorFields(etag: etag, source: source, varies: false)
        fields[.contentType] = "application/json"
        return ServiceResponse(status: .ok, headers: fields, body: body)
    }

    // MARK: Errors

    /// The JSON error body `{"error", "message", "requestId"}`, never cached.
    func errorResponse(_ error: ServiceError, requestID: String) -> ServiceResponse {
        let body = (try? JSONEncoder().encode(ErrorBody(error: error.code, message: error.message, requestId: requestID)))
            ?? Data("{\"error\":\"internal\"}".utf8)
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        if let after = error.retryAfter { fields[.retryAfter] = String(after) }
        return ServiceResponse(status: HTTPResponse.Status(code: error.status), headers: fields, body: body)
    }
}

/// `/info`'s JSON: `ImageInfo.Report`'s keys and two more.
struct InfoReport: Encodable {
    var report: ImageInfo.Report
    var sourceBytes: Int
    var sourceContentType: String

    private enum Keys: String, CodingKey { case sourceBytes, sourceContentType }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(sourceBytes, forKey: .sourceBytes)
        try c.encode(sourceContentType, forKey: .sourceContentType)
    }
}

struct ErrorBody: Encodable {
    var error: String
    var message: String
    var requestId: String
}
