// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// The timeouts of a download. SDWebImage's `downloadTimeout` is the idle one.
public struct ImageDownloadTimeouts: Sendable, Hashable {
    /// Until the response head arrives: connecting, TLS and the server's first byte. Default 15 s.
    public var connect: Duration
    /// Longest gap between body bytes. Default 15 s.
    public var read: Duration
    /// The whole transfer, head and body. Default 15 s; `nil` means no limit. Raise it for
    /// large images on slow links: the read timeout alone already catches a stalled transfer.
    public var total: Duration?

    /// Creates timeouts; each defaults to 15 s, as SDWebImage's download timeout.
    public init(connect: Duration = .seconds(15), read: Duration = .seconds(15), total: Duration? = .seconds(15)) {
        self.connect = connect
        self.read = read
        self.total = total
    }
}
