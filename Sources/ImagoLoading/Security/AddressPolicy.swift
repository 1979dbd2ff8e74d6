// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Which addresses a source may be fetched from: the defence against server-side request
/// forgery, checked on the address actually connected to.
///
/// By default only ``IPAddress/Kind/global`` addresses are allowed. Loopback, private and
/// link-local addresses can each be allowed (a service fetching from its own network);
/// unspecified, multicast, broadcast and reserved addresses never are.
public struct AddressPolicy: Sendable, Hashable {
    /// Allow 127.0.0.0/8 and ::1. Default `false`.
    public var allowsLoopback: Bool
    /// Allow RFC 1918, carrier-grade NAT and unique-local addresses. Default `false`.
    public var allowsPrivate: Bool
    /// Allow 169.254.0.0/16 and fe80::/10. Default `false`.
    public var allowsLinkLocal: Bool

    /// Creates a policy; every class defaults to refused.
    public init(allowsLoopback: Bool = false, allowsPrivate: Bool = false, allowsLinkLocal: Bool = false) {
        self.allowsLoopback = allowsLoopback
        self.allowsPrivate = allowsPrivate
        self.allowsLinkLocal = allowsLinkLocal
    }

    /// Global addresses only.
    public static let globalOnly = AddressPolicy()

    /// Whether `address` may be connected to.
    public func permits(_ address: IPAddress) -> Bool {
        permits(address.kind)
    }

    /// Whether addresses of `kind` may be connected to.
    public func permits(_ kind: IPAddress.Kind) -> Bool {
        switch kind {
        case .global: true
        case .loopback: allowsLoopback
        case .private: allowsPrivate
        case .linkLocal: allowsLinkLocal
        case .unspecified, .multicast, .broadcast, .reserved: false
        }
    }
}
