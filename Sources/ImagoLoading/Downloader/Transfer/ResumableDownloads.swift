// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bytes of transfers that stopped part-way, kept so the next transfer of the same URL asks
/// only for the rest (`Range` with `If-Range`), as Nuke's resumable data: only for responses
/// that allow it (`Accept-Ranges: bytes`, a strong `ETag` or a `Last-Modified`, no
/// `Content-Encoding`), within a byte budget, oldest dropped first.
final class ResumableDownloads: Sendable {
    struct Entry: Sendable {
        var data: Data
        /// The `If-Range` value: the strong ETag, else `Last-Modified`.
        var validator: String
    }

    private let limit: Int
    private let entries = Mutex<(order: [String], byURL: [String: Entry], bytes: Int)>(([], [:], 0))

    init(limit: Int) { self.limit = max(0, limit) }

    /// The validator a response allows resuming with, `nil` when it does not.
    static func validator(of head: DataLoadResponse) -> String? {
        guard head.statusCode == 200 || head.statusCode == 206,
            head.headers["accept-ranges"].map({ PathName.trimmed($0).lowercased() == "bytes" }) == true,
            head.headers["content-encoding"].map({ PathName.trimmed($0).lowercased() == "identity" }) ?? true
        else { return nil }
        if let etag = head.etag, !etag.hasPrefix("W/") { return etag }
        return head.lastModified
    }

    /// Keeps `data` of `url` (replacing what was kept), unless it is empty or over the budget.
    func keep(_ data: Data, validator: String, for url: String) {
        guard !data.isEmpty, data.count <= limit else { return }
        entries.withLock { e in
            if let old = e.byURL.removeValue(forKey: url) {
                e.bytes -= old.data.count
                e.order.removeAll { $0 == url }
            }
            while e.bytes + data.count > limit, let oldest = e.order.first {
                e.order.removeFirst()
                e.bytes -= e.byURL.removeValue(forKey: oldest)?.data.count ?? 0
            }
            e.byURL[url] = Entry(data: data, validator: validator)
            e.order.append(url)
            e.bytes += data.count
        }
    }

    /// Takes (and forgets) what was kept of `url`.
    func take(_ url: String) -> Entry? {
        entries.withLock { e in
            guard let entry = e.byURL.removeValue(forKey: url) else { return nil }
            e.order.removeAll { $0 == url }
            e.bytes -= entry.data.count
            return entry
        }
    }

    /// Bytes kept now.
    var byteCount: Int { entries.withLock { $0.bytes } }
}
