// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import HTTPTypes
import Hummingbird
import Logging
import NIOCore

extension ImageService {
    /// Answers one request without a server in front, through the same routes and middleware a
    /// server runs (``routes(_:mountedAt:operations:middleware:)``): the request id, the access
    /// log, the metrics, the deadline, the authorization check, then the handler, and errors as
    /// their responses. Requests are never cancelled by a client going away here.
    ///
    /// - Parameters:
    ///   - method: `GET` or `HEAD` for images; `OPTIONS` is a CORS preflight; `POST /purge`.
    ///   - path: The request target's path as it arrived (still percent-encoded), without the
    ///     prefix the service is mounted under. The signature covers it byte for byte.
    ///   - headers: The request's headers (`Accept`, `If-None-Match`, `Authorization`,
    ///     `X-Request-ID`, `Cookie` are read). A `Host` field is the host asked (else `localhost`).
    /// - Returns: The response, its body in memory; errors are responses too, with a JSON body
    ///   `{"error", "message", "requestId"}` and `Cache-Control: no-store`.
    public func respond(method: HTTPRequest.Method, path: String, headers: HTTPFields) async -> ServiceResponse {
        let request = Request(
            head: HTTPRequest(
                method: method, scheme: "http", authority: headers[.host] ?? "localhost", path: path, headerFields: headers),
            body: RequestBody(buffer: ByteBuffer()))
        let context = InProcessRequestContext(source: .init(logger: logger))
        let response: Response
        do {
            response = try await inProcessResponder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = (try? error.response(from: request, context: context)) ?? Response(status: error.status)
        } catch {
            response = ServiceError(answering: error, logger: logger, requestID: "").hummingbirdResponse(requestID: "")
        }
        let body = BodyCollector()
        try? await response.body.write(body)
        return ServiceResponse(status: response.status, headers: response.headers, body: .bytes(body.buffer))
    }

    /// The routes at the root, built once, for ``respond(method:path:headers:)``.
    var inProcessResponder: RouterResponder<InProcessRequestContext> {
        inProcessRoutes.withLock { built in
            if let built { return built }
            let router = Router(context: InProcessRequestContext.self)
            addRoutes(to: router)
            let responder = router.buildResponder()
            built = responder
            return responder
        }
    }
}

/// The context of a request answered in process: Hummingbird's own storage and the service's
/// logger, no connection.
struct InProcessRequestContext: RequestContext {
    /// Where such a context comes from: the logger alone.
    struct Source: RequestContextSource {
        let logger: Logger
    }

    var coreContext: CoreRequestContextStorage

    init(source: Source) {
        coreContext = .init(source: source)
    }
}

/// A response body written into memory.
final class BodyCollector: ResponseBodyWriter {
    private(set) var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var more = buffer
        self.buffer.writeBuffer(&more)
    }

    func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
        for piece in buffers { try await write(piece) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
