// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import AsyncHTTPClient
import Synchronization

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Sends one HTTP exchange, optionally pinned to an address: what ``HTTPDataLoader`` uses for
/// each request and redirect hop. Tests put a counting one in place to prove that a refused
/// source is never connected to.
package protocol HTTPConnecting: Sendable {
    /// Sends `request` for `url`; with `address`, connects to it rather than resolving the host,
    /// keeping the host name for TLS and the `Host` header.
    func execute(_ request: HTTPClientRequest, for url: URL, at address: IPAddress?) async throws -> HTTPClientResponse
    /// Closes every connection.
    func shutdown() async throws
}

/// The default connector: AsyncHTTPClient, one client for direct connections, one per proxy,
/// and, for pinned connections, one per host and address (a client's DNS override is what pins
/// it), the least recently used closed past ``maxPinnedClients``.
package final class PinnedHTTPConnector: HTTPConnecting {
    private let makeClient: @Sendable (HTTPProxy?, [String: String]) -> HTTPClient
    private let direct: HTTPClient
    private let proxied: [HTTPProxy: HTTPClient]
    private let proxies: ProxySettings
    private let pinned = Mutex<(clients: [String: (client: HTTPClient, used: UInt64)], clock: UInt64)>(([:], 0))
    /// Pinned clients kept open at once. Default 64.
    package let maxPinnedClients: Int

    package init(
        proxies: ProxySettings, maxPinnedClients: Int = 64,
        makeClient: @escaping @Sendable (HTTPProxy?, [String: String]) -> HTTPClient
    ) {
        self.makeClient = makeClient
        self.proxies = proxies
        self.maxPinnedClients = max(1, maxPinnedClients)
        direct = makeClient(nil, [:])
        var proxied: [HTTPProxy: HTTPClient] = [:]
        for proxy in [proxies.http, proxies.https].compactMap({ $0 }) where proxied[proxy] == nil {
            proxied[proxy] = makeClient(proxy, [:])
        }
        self.proxied = proxied
    }

    deinit {
        let clients = [direct] + Array(proxied.values) + pinned.withLock { $0.clients.values.map(\.client) }
        Task { for client in clients { try? await client.shutdown() } }
    }

    package func execute(_ request: HTTPClientRequest, for url: URL, at address: IPAddress?) async throws -> HTTPClientResponse {
        try await client(for: url, at: address).execute(request, deadline: .distantFuture)
    }

    package func shutdown() async throws {
        let pinnedClients = pinned.withLock { p -> [HTTPClient] in
            defer { p.clients = [:] }
            return p.clients.values.map(\.client)
        }
        for client in pinnedClients { try? await client.shutdown() }
        for client in proxied.values { try await client.shutdown() }
        try await direct.shutdown()
    }

    private func client(for url: URL, at address: IPAddress?) -> HTTPClient {
        if let proxy = proxies.proxy(for: url), let client = proxied[proxy] { return client }
        guard let address, let host = url.host else { return direct }
        let key = host.lowercased() + "|" + address.description
        let (client, evicted) = pinned.withLock { p -> (HTTPClient, HTTPClient?) in
            p.clock += 1
            if let existing = p.clients[key] {
                p.clients[key]?.used = p.clock
                return (existing.client, nil)
            }
            let made = makeClient(nil, [host: address.description])
            var evicted: HTTPClient?
            if p.clients.count >= maxPinnedClients, let oldest = p.clients.min(by: { $0.value.used < $1.value.used }) {
                evicted = oldest.value.client
                p.clients[oldest.key] = nil
            }
            p.clients[key] = (made, p.clock)
            return (made, evicted)
        }
        // Closed later, not now: a transfer may still be running on it.
        if let evicted {
            Task {
                try? await Task.sleep(for: .seconds(120))
                try? await evicted.shutdown()
            }
        }
        return client
    }
}
