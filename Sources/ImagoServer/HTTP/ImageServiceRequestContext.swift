// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import Hummingbird
import NIOCore

/// The request context of ``ImageServer``: Hummingbird's basic context plus the request's
/// channel, through which the service learns that a client went away.
///
/// Mount the service in your own router with this context (`Router(context:
/// ImageServiceRequestContext.self)`) to have requests whose clients leave cancelled; with
/// another context the routes work the same but run to the end.
public struct ImageServiceRequestContext: RequestContext {
    /// Hummingbird's own per-request state (logger, parameters, allocator).
    public var coreContext: CoreRequestContextStorage
    /// The request's connection, by which ``ImageService`` finds whether its client is still there.
    let channelID: ObjectIdentifier

    /// Creates the context of a request arriving on `source.channel`; Hummingbird calls it.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channelID = ObjectIdentifier(source.channel)
    }
}
