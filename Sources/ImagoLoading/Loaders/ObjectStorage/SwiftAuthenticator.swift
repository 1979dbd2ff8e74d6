// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs in to OpenStack Swift (tempauth v1, Keystone v2 or v3) and keeps the session: one
/// sign-in at a time, shared by every load that needs it, renewed when the store refuses the
/// token.
final class SwiftAuthenticator: Sendable {
    /// A token and the account's storage URL.
    struct Session: Sendable, Hashable {
        let token: String
        let storageURL: URL
    }

    let settings: SwiftStorageSettings
    private let connector: any HTTPConnecting
    private let timeout: Duration
    private let state = Mutex<(session: Session?, pending: Task<Session, any Error>?)>((nil, nil))

    init(settings: SwiftStorageSettings, connector: any HTTPConnecting, timeout: Duration) {
        self.settings = settings
        self.connector = connector
        self.timeout = timeout
    }

    /// The current session, signing in when there is none (once, for every caller waiting).
    ///
    /// - Throws: ``ImageLoadingError/connectionFailed(_:transient:)`` when the sign-in is refused
    ///   or its answer lacks a token or storage URL; the transport's errors.
    func session() async throws -> Session {
        let task = state.withLock { s -> Task<Session, any Error>? in
            if s.session != nil { return nil }
            if let pending = s.pending { return pending }
            let made = Task { [self] in try await signIn() }
            s.pending = made
            return made
        }
        guard let task else {
            if let session = state.withLock({ $0.session }) { return session }
            return try await self.session()
        }
        do {
            let session = try await task.value
            state.withLock { s in
                s.session = session
                s.pending = nil
            }
            return session
        } catch {
            state.withLock { $0.pending = nil }
            throw error
        }
    }

    /// Forgets `stale` (a token the store refused), so the next ``session()`` signs in again.
    func invalidate(_ stale: Session) {
        state.withLock { s in if s.session == stale { s.session = nil } }
    }

    /// One sign-in, by the configured version.
    private func signIn() async throws -> Session {
        switch settings.effectiveAuthVersion {
        case 1: return try await signInV1()
        case 2: return try await signInKeystone(version: 2)
        default: return try await signInKeystone(version: 3)
        }
    }

    private func signInV1() async throws -> Session {
        var request = HTTPClientRequest(url: settings.authURL.absoluteString)
        request.headers.add(name: "X-Auth-User", value: settings.username)
        request.headers.add(name: "X-Auth-Key", value: settings.apiKey)
        let (head, _) = try await exchange(request)
        guard let token = head.first(name: "X-Auth-Token") ?? head.first(name: "X-Storage-Token"),
            let storage = head.first(name: "X-Storage-Url").flatMap(URL.init(string:))
        else {
            throw Self.failure("the answer has no X-Auth-Token or X-Storage-Url")
        }
        return Session(token: token, storageURL: storage)
    }

    private func signInKeystone(version: Int) async throws -> Session {
        var base = settings.authURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var request = HTTPClientRequest(url: base + (version == 3 ? "/auth/tokens" : "/tokens"))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try Self.keystoneBody(settings, version: version)))
        let (head, body) = try await exchange(request)
        let decoder = JSONDecoder()
        let token: String?
        let catalog: [KeystoneService]
        if version == 3 {
            token = head.first(name: "X-Subject-Token")
            catalog = (try? decoder.decode(KeystoneV3Answer.self, from: body))?.token.catalog ?? []
        } else {
            let answer = try? decoder.decode(KeystoneV2Answer.self, from: body)
            token = answer?.access.token.id
            catalog = answer?.access.serviceCatalog ?? []
        }
        guard let token, !token.isEmpty else { throw Self.failure("the answer has no token") }
        let endpoints = catalog.filter { $0.type == "object-store" }.flatMap(\.endpoints).filter {
            ($0.interface == nil || $0.interface == "public") && (settings.region == nil || $0.region == settings.region)
        }
        guard let storage = endpoints.lazy.compactMap({ ($0.url ?? $0.publicURL).flatMap(URL.init(string:)) }).first else {
            throw Self.failure("the catalog has no public object-store endpoint" + (settings.region.map { " in region \($0)" } ?? ""))
        }
        return Session(token: token, storageURL: storage)
    }

    /// Keystone's password sign-in body: v3 with the user's domain and a project scope when a
    /// tenant is set; v2 with `passwordCredentials` and `tenantName`.
    static func keystoneBody(_ settings: SwiftStorageSettings, version: Int) throws -> Data {
        struct Named: Encodable { let name: String }
        struct User: Encodable {
            let name: String
            let domain: Named
            let password: String
        }
        struct Password: Encodable { let user: User }
        struct Identity: Encodable {
            let methods: [String]
            let password: Password
        }
        struct Project: Encodable {
            let name: String
            let domain: Named
        }
        struct Scope: Encodable { let project: Project }
        struct V3Auth: Encodable {
            let identity: Identity
            let scope: Scope?
        }
        struct V3: Encodable { let auth: V3Auth }
        struct Credentials: Encodable {
            let username: String
            let password: String
        }
        struct V2Auth: Encodable {
            let passwordCredentials: Credentials
            let tenantName: String?
        }
        struct V2: Encodable { let auth: V2Auth }

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if version == 3 {
            let domain = Named(name: settings.domain ?? "Default")
            let identity = Identity(
                methods: ["password"], password: Password(user: User(name: settings.username, domain: domain, password: settings.apiKey)))
            let scope = settings.tenant.map { Scope(project: Project(name: $0, domain: domain)) }
            return try encoder.encode(V3(auth: V3Auth(identity: identity, scope: scope)))
        }
        return try encoder.encode(
            V2(auth: V2Auth(passwordCredentials: Credentials(username: settings.username, password: settings.apiKey), tenantName: settings.tenant)))
    }

    /// Sends a sign-in request within the timeout; its head and body (at most 1 MiB).
    private func exchange(_ request: HTTPClientRequest) async throws -> (HTTPHeaders, Data) {
        let answer = try await ObjectStoreExchange.send(request, for: settings.authURL, through: connector, timeout: timeout)
        guard (200..<300).contains(answer.status) else { throw Self.failure("\(settings.authURL.absoluteString) answered \(answer.status)") }
        return (answer.headers, answer.body)
    }

    private static func failure(_ reason: String) -> ImageLoadingError {
        .connectionFailed("Swift authentication failed: \(reason)", transient: false)
    }

    private struct KeystoneEndpoint: Decodable {
        let interface: String?
        let region: String?
        let url: String?
        let publicURL: String?
    }

    private struct KeystoneService: Decodable {
        let type: String
        let endpoints: [KeystoneEndpoint]
    }

    private struct KeystoneV3Answer: Decodable {
        struct Token: Decodable { let catalog: [KeystoneService]? }
        let token: Token
    }

    private struct KeystoneV2Answer: Decodable {
        struct Access: Decodable {
            struct Token: Decodable { let id: String }
            let token: Token
            let serviceCatalog: [KeystoneService]?
        }
        let access: Access
    }
}
