// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// How a ``SwiftDataLoader`` signs in to OpenStack Swift: imgproxy's `IMGPROXY_SWIFT_*` settings.
///
/// Version 1 is Swift's own auth (tempauth, swauth): `GET AUTH_URL` with `X-Auth-User` and
/// `X-Auth-Key` answers the token and the storage URL. Versions 2 and 3 are Keystone's: a
/// password sign-in answers a token and the service catalog, whose public `object-store`
/// endpoint is the storage URL. Version 0 (the default) picks by the URL, as imgproxy's Swift
/// library does: `v3` in it for 3, `v2` for 2, else 1.
public struct SwiftStorageSettings: Sendable, Hashable {
    /// The sign-in URL (`http://host:8080/auth/v1.0`, `https://keystone/v3`).
    public var authURL: URL
    /// The user (`account:user` for tempauth).
    public var username: String
    /// The key or password.
    public var apiKey: String
    /// 1, 2 or 3; 0 (default) chooses by ``authURL``.
    public var authVersion: Int
    /// Keystone v3: the user's and project's domain. Default `nil` (`Default`).
    public var domain: String?
    /// Keystone: the project (tenant) to scope the token to. Default `nil` (the user's default).
    public var tenant: String?
    /// Keystone: the catalog region whose endpoint to use. Default `nil` (the first).
    public var region: String?

    /// Settings from their parts; the optional ones default as documented on their properties.
    public init(
        authURL: URL, username: String, apiKey: String, authVersion: Int = 0, domain: String? = nil, tenant: String? = nil,
        region: String? = nil
    ) {
        self.authURL = authURL
        self.username = username
        self.apiKey = apiKey
        self.authVersion = authVersion
        self.domain = domain
        self.tenant = tenant
        self.region = region
    }

    /// The version in use: ``authVersion``, or the one ``authURL`` names.
    package var effectiveAuthVersion: Int {
        if (1...3).contains(authVersion) { return authVersion }
        let path = authURL.absoluteString.lowercased()
        if path.contains("v3") { return 3 }
        if path.contains("v2") { return 2 }
        return 1
    }
}
