// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import Logging
import Synchronization

/// What the service knows of the request in flight, shared by its middleware and handler through
/// a task-local: the request id (for the `X-Request-ID` header, error bodies and the log), when
/// it arrived, and the source's host once the handler knows it (for the access log).
///
/// ``ServiceRequestIDMiddleware`` binds it; without that middleware the errors carry an empty id.
public final class ServiceRequestScope: Sendable {
    /// The scope of the request the current task serves, if any.
    @TaskLocal public static var current: ServiceRequestScope?

    /// The request id: the client's `X-Request-ID` when it is short printable ASCII, else the
    /// server's own id for the request (Hummingbird's `RequestContext.id`), else a new one.
    public let id: String
    /// When the request arrived.
    public let started: ContinuousClock.Instant
    private let host = Mutex<String?>(nil)

    /// Creates a scope for a request carrying `X-Request-ID: requestID` (`nil`: none), which the
    /// server knows as `contextID` (Hummingbird's request id; `nil`: a new id is made).
    public init(requestID: String?, contextID: String? = nil) {
        id = Self.requestID(from: requestID, contextID: contextID)
        started = .now
    }

    /// The source's host, once the handler has fetched it (`local` for local files); `nil` before.
    public var sourceHost: String? {
        get { host.withLock { $0 } }
        set { host.withLock { $0 = newValue } }
    }

    /// `request_id`: the id of the request the logging task serves, for every log line written
    /// while it is served, the library's own included (a download, a cache warning). Bootstrap
    /// swift-log with it (`LoggingSystem.bootstrap(_:metadataProvider:)`), as `imago-server` does.
    public static let metadataProvider = Logger.MetadataProvider {
        guard let id = current?.id else { return [:] }
        return ["request_id": .string(id)]
    }

    /// An incoming `X-Request-ID` made of letters, digits, `_` and `-` alone (imgproxy's rule),
    /// at most 128 of them, else the server's id for the request, else a new random one.
    static func requestID(from header: String?, contextID: String? = nil) -> String {
        if let h = header, !h.isEmpty, h.utf8.count <= 128,
            h.utf8.allSatisfy({ $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber || $0 == 0x5F || $0 == 0x2D) })
        {
            return h
        }
        if let contextID, !contextID.isEmpty { return contextID }
        var g = SystemRandomNumberGenerator()
        return String(g.next() as UInt64, radix: 16, uppercase: false)
    }
}
