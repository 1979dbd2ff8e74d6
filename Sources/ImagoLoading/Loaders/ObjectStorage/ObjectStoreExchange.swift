// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request to an object store's API (a sign-in, a result read or written, a listing), its
/// answer read whole, within a time limit.
enum ObjectStoreExchange {
    /// Sends `request` for `url` through `connector`; its status, headers and body (at most
    /// `limit` bytes), all within `timeout`.
    ///
    /// - Throws: ``ImageLoadingError/timedOut(_:)`` past the limit; the transport's errors as
    ///   ``HTTPDataLoader`` maps them; NIO's when the body exceeds `limit`.
    static func send(
        _ request: HTTPClientRequest, for url: URL, through connector: any HTTPConnecting, timeout: Duration, limit: Int = 1 << 20
    ) async throws -> (status: Int, headers: HTTPHeaders, body: Data) {
        try await withThrowingTaskGroup(of: (Int, HTTPHeaders, Data)?.self) { group in
            group.addTask {
                let response: HTTPClientResponse
                do {
                    response = try await connector.execute(request, for: url, at: nil)
                } catch {
                    throw HTTPDataLoader.map(error, url: url)
                }
                let body = try await response.body.collect(upTo: limit)
                return (Int(response.status.code), response.headers, Data(body.readableBytesView))
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let answer = first else { throw ImageLoadingError.timedOut(.total) }
            return answer
        }
    }
}
