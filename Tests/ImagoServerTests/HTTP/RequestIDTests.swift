// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing

@testable import ImagoServer

@Suite("Request ids: the client's, else the server's own for the request")
struct RequestIDTests {
    /// The id the handler saw in its scope and the `X-Request-ID` answered, for a request with
    /// `header` through a context whose logger carries Hummingbird's id `contextID`.
    func ids(header: String?, contextID: String?) async throws -> (seen: String, answered: String?) {
        var logger = Logger(label: "imago.tests.request-id")
        if let contextID { logger[metadataKey: "hb.request.id"] = .string(contextID) }
        var fields = HTTPFields()
        if let header { fields[.xRequestID] = header }
        let request = Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/", headerFields: fields),
            body: RequestBody(buffer: ByteBuffer()))
        let seen = SeenID()
        let response = try await ServiceRequestIDMiddleware<InProcessRequestContext>(logger: logger)
            .handle(request, context: InProcessRequestContext(source: .init(logger: logger))) { _, _ in
                seen.value = ServiceRequestScope.current?.id ?? ""
                return Response(status: .ok)
            }
        return (seen.value, response.headers[.xRequestID])
    }

    @Test("A usable X-Request-ID wins; else Hummingbird's id, which its own log lines carry; else a new one")
    func precedence() async throws {
        let client = try await ids(header: "client-7", contextID: "hb-42")
        #expect(client.seen == "client-7" && client.answered == "client-7")
        let server = try await ids(header: nil, contextID: "hb-42")
        #expect(server.seen == "hb-42" && server.answered == "hb-42")
        let junk = try await ids(header: "has spaces in it", contextID: "hb-43")
        #expect(junk.seen == "hb-43" && junk.answered == "hb-43")
        // imgproxy's rule: letters, digits, _ and - alone.
        for bad in ["a.b", "a/b", "a:b", "{\"x\":1}", String(repeating: "a", count: 129)] {
            #expect(ServiceRequestScope.requestID(from: bad, contextID: "hb") == "hb", "\(bad)")
        }
        #expect(ServiceRequestScope.requestID(from: "Req_2026-11-30", contextID: "hb") == "Req_2026-11-30")
        let fresh = try await ids(header: nil, contextID: nil)
        #expect(!fresh.seen.isEmpty && fresh.answered == fresh.seen)
        let another = try await ids(header: nil, contextID: nil)
        #expect(another.seen != fresh.seen)
    }
}

/// The handler's view of its scope, read after the middleware returns.
private final class SeenID: Sendable {
    private let id = Mutex("")
    var value: String {
        get { id.withLock { $0 } }
        set { id.withLock { $0 = newValue } }
    }
}
