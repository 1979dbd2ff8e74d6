// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What an ``HTTPDataLoader`` checks before each connection: that the URL is allowed (an
/// allow-list), and that the address it resolves to is allowed (``AddressPolicy``). Both run on
/// the first request and on every redirect.
///
/// The address checked is the address connected to: the loader resolves the host once, checks
/// the result, and pins the connection to that address (keeping the host name for TLS and the
/// `Host` header), so a second lookup by anything else cannot change it (DNS rebinding).
/// Connections through a proxy are outside this check: the proxy resolves.
public struct SourceGuard: Sendable {
    /// Which addresses may be connected to. Default ``AddressPolicy/globalOnly``.
    public var policy: AddressPolicy
    /// Resolves host names. Default ``SystemHostResolver``.
    public var resolver: any HostResolving
    /// Whether a URL (the first, or a redirect's target) may be fetched at all. Default: any.
    public var permitsURL: @Sendable (URL) -> Bool

    /// Creates a guard; every parameter defaults as documented on its property.
    public init(
        policy: AddressPolicy = .globalOnly, resolver: any HostResolving = SystemHostResolver(),
        permitsURL: @escaping @Sendable (URL) -> Bool = { _ in true }
    ) {
        self.policy = policy
        self.resolver = resolver
        self.permitsURL = permitsURL
    }

    /// Whether bytes fetched along `route` (a cached response's) may be used under this guard
    /// as it is now: every URL on it allowed, and every address it came from of a kind the
    /// policy allows. A route that recorded no address kind (fetched without a guard) is not
    /// known to be safe.
    package func permits(route: [DataLoadResponse.Hop]) -> Bool {
        !route.isEmpty && route.allSatisfy { hop in permitsURL(hop.url) && hop.addressKind.map(policy.permits) == true }
    }

    /// The address to connect to for `url`: the first of its host's addresses the policy allows.
    ///
    /// - Throws: ``ImageLoadingError/sourceNotAllowed(_:)`` for a URL the allow-list refuses,
    ///   ``ImageLoadingError/addressNotAllowed(host:kind:)`` when no address is allowed, the
    ///   resolver's errors.
    func address(for url: URL) async throws -> IPAddress {
        guard permitsURL(url) else { throw ImageLoadingError.sourceNotAllowed(url.absoluteString) }
        guard let host = url.host, !host.isEmpty else { throw ImageLoadingError.invalidURL(url.absoluteString) }
        let addresses = try await resolver.resolve(host)
        if let allowed = addresses.first(where: policy.permits) { return allowed }
        throw ImageLoadingError.addressNotAllowed(host: host, kind: addresses.first?.kind ?? .unspecified)
    }
}
