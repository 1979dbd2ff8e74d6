// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import ImagoCore
import ImagoLoading
import Synchronization

/// A resolver that answers from a table, and counts lookups; names not in it do not resolve.
public final class TableResolver: HostResolving {
    public let table: [String: [String]]
    public let lookups = Mutex(0)

    public init(_ table: [String: [String]]) {
        self.table = table
    }

    public func resolve(_ host: String) async throws -> [IPAddress] {
        lookups.withLock { $0 += 1 }
        if let literal = IPAddress(literal: host) { return [literal] }
        guard let answers = table[host.lowercased()] else {
            throw ImageLoadingError.connectionFailed("\(host) does not resolve", transient: true)
        }
        return answers.compactMap { IPAddress(literal: $0) }
    }
}

/// A connector that counts every exchange it is asked for, with the address, and hands real
/// (loopback) ones to the default connector.
public final class CountingConnector: HTTPConnecting {
    let base = HTTPDataLoader.makeConnector()
    public let attempts = Mutex<[String]>([])
    /// The URL of every exchange, in order.
    public let urls = Mutex<[URL]>([])

    public init() {}

    public func execute(_ request: HTTPClientRequest, for url: URL, at address: IPAddress?) async throws -> HTTPClientResponse {
        attempts.withLock { $0.append("\(url.host ?? "?")@\(address?.description ?? "-")") }
        urls.withLock { $0.append(url) }
        return try await base.execute(request, for: url, at: address)
    }

    public func shutdown() async throws { try await base.shutdown() }
}
