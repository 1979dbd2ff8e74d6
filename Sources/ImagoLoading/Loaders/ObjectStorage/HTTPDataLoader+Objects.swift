// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPDataLoader {
    /// Loads an object store's object for `source` (`s3://`, `swift://`, `abs://`) from its HTTP
    /// URL `target` with `headers` (signed by the caller), no redirects followed, and reports the
    /// head as `source`'s: its URL, and a one-hop route without an address kind (the store is
    /// the operator's). `check` sees the head first and may throw (a redirect, a refused token).
    func loadObject(
        _ source: URL, at target: URL, headers: [String: String], like request: DataLoadRequest,
        response: (DataLoadResponse) throws -> Void, chunk: (Data) throws -> Void,
        check: (DataLoadResponse) throws -> Void = { _ in }
    ) async throws {
        let outgoing = DataLoadRequest(
            url: target, headers: headers, timeouts: request.timeouts, maxRedirects: 0,
            allowsInvalidCertificates: request.allowsInvalidCertificates)
        try await load(
            outgoing,
            response: { head in
                try check(head)
                var reported = head
                reported.url = source
                reported.route = [DataLoadResponse.Hop(url: source, addressKind: nil)]
                try response(reported)
            }, chunk: chunk)
    }

    /// The `BUCKET`/`CONTAINER` and the key of an object store's URL (`scheme://NAME/KEY`), the
    /// key percent-decoded; `nil` when either is empty.
    static func objectName(of url: URL) -> (container: String, key: String)? {
        guard let container = url.host, !container.isEmpty else { return nil }
        var key = url.path(percentEncoded: false)
        while key.hasPrefix("/") { key.removeFirst() }
        return key.isEmpty ? nil : (container, key)
    }
}
