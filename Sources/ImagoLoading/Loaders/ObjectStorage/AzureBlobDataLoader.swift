// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `abs://CONTAINER/BLOB` (imgproxy's form) from Azure Blob Storage, signed with the account's
/// Shared Key (`AzureSharedKey`), or unsigned for a public container when no key is given.
///
/// Each load is one `GET` of `ENDPOINT/CONTAINER/BLOB`, the endpoint
/// `https://ACCOUNT.blob.core.windows.net` unless another is given (Azurite's
/// `http://127.0.0.1:10000/ACCOUNT`, a sovereign cloud's), through AsyncHTTPClient with the
/// same timeouts, streaming, limits and error mapping as ``HTTPDataLoader``; conditional
/// headers are signed and sent, so a cached blob is revalidated with a 304. As with
/// ``S3DataLoader``, the `abs://` URL is checked against ``permitsURL`` and redirects are not
/// followed. Microsoft Entra ID (managed identity) sign-in is not supported: use a key.
public final class AzureBlobDataLoader: DataLoading {
    /// The storage account.
    public let account: String
    /// The Blob service's base URL.
    public let endpoint: URL
    /// Whether an `abs://` URL may be fetched (an allow-list). Default: any.
    public let permitsURL: @Sendable (URL) -> Bool
    private let signer: AzureSharedKey?
    private let transport: HTTPDataLoader

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - account: The storage account's name.
    ///   - key: Its base64 access key; `nil` for unsigned requests (public containers).
    ///   - endpoint: Default `https://ACCOUNT.blob.core.windows.net`.
    ///   - connectTimeout: Bounds establishing one connection. Default 15 s.
    ///   - proxies: Default ``ProxySettings/none``.
    ///   - permitsURL: Whether an `abs://` URL may be fetched. Default: any.
    /// - Returns: `nil` when the key is not base64 or the endpoint has no host.
    public convenience init?(
        account: String, key: String?, endpoint: URL? = nil, connectTimeout: Duration = .seconds(15), proxies: ProxySettings = .none,
        permitsURL: @escaping @Sendable (URL) -> Bool = { _ in true }
    ) {
        self.init(
            account: account, key: key, endpoint: endpoint, connectTimeout: connectTimeout, proxies: proxies, permitsURL: permitsURL,
            connector: nil)
    }

    /// Creates a loader with its own connector (tests count the requests with one).
    package init?(
        account: String, key: String?, endpoint: URL? = nil, connectTimeout: Duration = .seconds(15), proxies: ProxySettings = .none,
        permitsURL: @escaping @Sendable (URL) -> Bool = { _ in true }, connector: (any HTTPConnecting)?
    ) {
        guard let base = endpoint ?? URL(string: "https://\(account).blob.core.windows.net"), base.host?.isEmpty == false else { return nil }
        if let key {
            guard let signer = AzureSharedKey(account: account, key: key) else { return nil }
            self.signer = signer
        } else {
            signer = nil
        }
        self.account = account
        self.endpoint = base
        self.permitsURL = permitsURL
        transport = HTTPDataLoader(connectTimeout: connectTimeout, proxies: proxies, sourceGuard: nil, connector: connector)
    }

    /// Closes the connections. Loads after this fail.
    ///
    /// - Throws: AsyncHTTPClient's error when it was already shut down.
    public func shutdown() async throws {
        try await transport.shutdown()
    }

    /// `true` for `abs`.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == "abs" }

    /// The blob's HTTP URL for an `abs://` URL; `nil` when the container or blob is empty.
    func blobURL(for url: URL) -> URL? {
        guard let (container, blob) = HTTPDataLoader.objectName(of: url) else { return nil }
        var base = endpoint.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/" + AWSSignatureV4.encode(container, keepingSlash: false) + "/" + AWSSignatureV4.encode(blob, keepingSlash: true))
    }

    /// Signs and sends the blob's `GET`, reports its head as the `abs://` URL's, streams the body.
    ///
    /// - Throws: ``ImageLoadingError/sourceNotAllowed(_:)`` for a URL ``permitsURL`` refuses;
    ///   ``ImageLoadingError/invalidURL(_:)`` for an empty container or blob; the errors of
    ///   ``HTTPDataLoader/load(_:response:chunk:)``.
    public func load(
        _ request: DataLoadRequest, response: (DataLoadResponse) throws -> Void, chunk: (Data) throws -> Void
    ) async throws {
        guard permitsURL(request.url) else { throw ImageLoadingError.sourceNotAllowed(request.url.absoluteString) }
        guard let target = blobURL(for: request.url) else { throw ImageLoadingError.invalidURL(request.url.absoluteString) }
        var headers: [String: String] = [:]
        let given = request.headers.filter { $0.key.lowercased() != "authorization" }.map { (name: $0.key, value: $0.value) }
        for (name, value) in signer?.sign(method: "GET", url: target, headers: given) ?? given { headers[name] = value }
        try await transport.loadObject(request.url, at: target, headers: headers, like: request, response: response, chunk: chunk)
    }

    /// Whether bytes cached for `url` may be used: ``permitsURL`` as it is now.
    public func permitsCached(_ url: URL, route: [DataLoadResponse.Hop]?) -> Bool? { permitsURL(url) }
}
