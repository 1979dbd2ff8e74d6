// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import ImagoCore
import ImagoLoading
import Synchronization

/// A resolver that answers from a table, and counts lookups; names not in it do not resolve.
public final class TableResolver: HostResolving {
    /// Address literals by host name, written in lowercase: lookups lowercase the name.
    public let table: [String: [String]]
    /// Lookups so far, literals included.
    public let lookups = Mutex(0)

    /// Creates a resolver answering from `table`.
    public init(_ table: [String: [String]]) {
        self.table = table
    }

    /// An address literal as it is; else the table's answers for `host` (those that parse).
    ///
    /// - Throws: ``ImageLoadingError/connectionFailed(_:transient:)``, transient, for a name not in the table.
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
    /// Every exchange, in order, as `host@address` (`-` when no address was given).
    public let attempts = Mutex<[String]>([])
    /// The URL of every exchange, in order.
    public let urls = Mutex<[URL]>([])

    /// Creates a connector over ``HTTPDataLoader/makeConnector()``.
    public init() {}

    /// Records the exchange, then runs it on the default connector.
    ///
    /// - Throws: the default connector's errors.
    public func execute(_ request: HTTPClientRequest, for url: URL, at address: IPAddress?) async throws -> HTTPClientResponse {
        attempts.withLock { $0.append("\(url.host ?? "?")@\(address?.description ?? "-")") }
        urls.withLock { $0.append(url) }
        return try await base.execute(request, for: url, at: address)
    }

    /// Shuts the default connector down.
    ///
    /// - Throws: the default connector's errors.
    public func shutdown() async throws { try await base.shutdown() }
}
