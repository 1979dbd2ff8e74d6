#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import HTTPTypes

/// What ``ImageService`` answers: a status, headers and a body, independent of the HTTP server
/// that sends them (``ImageService/addRoutes(to:at:operations:)`` hands them to Hummingbird).
public struct ServiceResponse: Sendable {
    /// The status.
    public var status: HTTPResponse.Status
    /// The headers, `Content-Type` and `Cache-Control` among them; `Content-Length` is the server's.
    public var headers: HTTPFields
    /// The body (empty for 304 and for `HEAD`).
    public var body: Data

    /// Creates a response.
    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name("X-Request-ID")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
