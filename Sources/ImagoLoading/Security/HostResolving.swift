// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns a host name into the addresses to connect to. ``SystemHostResolver`` is the default; a
/// test or a service with its own DNS plugs in the same way.
public protocol HostResolving: Sendable {
    /// The addresses of `host`, in the order to try them.
    ///
    /// - Throws: ``ImageLoadingError/connectionFailed(_:transient:)`` when the name does not resolve.
    func resolve(_ host: String) async throws -> [IPAddress]
}

/// The system's resolver (`getaddrinfo`, with `/etc/hosts`), run off the cooperative pool.
/// Address literals in any spelling `inet_aton` accepts are read without a lookup.
public struct SystemHostResolver: HostResolving {
    private static let queue = WorkQueue(label: "imago.resolver", maxConcurrentCount: 4)

    /// Creates the resolver.
    public init() {}

    /// An address literal as it is; otherwise the first address `getaddrinfo` gives for `host`.
    ///
    /// - Throws: ``ImageLoadingError/connectionFailed(_:transient:)``, transient, when the name does not resolve.
    public func resolve(_ host: String) async throws -> [IPAddress] {
        if let literal = IPAddress(literal: host) { return [literal] }
        return try await Self.queue.run {
            do {
                let address = try SocketAddress.makeAddressResolvingHost(host, port: 0)
                guard let text = address.ipAddress, let ip = IPAddress(literal: text) else {
                    throw ImageLoadingError.connectionFailed("\(host) did not resolve to an IP address", transient: true)
                }
                return [ip]
            } catch let e as ImageLoadingError {
                throw e
            } catch {
                throw ImageLoadingError.connectionFailed("\(host) does not resolve: \(error)", transient: true)
            }
        }
    }
}
