// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoLoading

/// A source fetched for one request, and what the service adds to it.
struct ServiceSource: Sendable {
    /// The source as the pipeline fetched it: its bytes or cached file, digest, validators.
    var loaded: LoadedSource
    /// The request it was fetched with, which the render starts from.
    var request: ImageRequest
    /// The source as the URL named it.
    var name: String
    var contentType: String?
    var lastModified: String?
    /// The host, for the access log (`local` for local files).
    var host: String?
    /// The file name the source suggests, without extension, for `Content-Disposition`.
    var baseName: String

    /// `CachedEntry.digest(of:)` of the bytes: the one the source cache recorded, or computed once.
    var digest: UInt64 { loaded.digest }
    /// The size in bytes.
    var count: Int { loaded.byteCount }
    /// Whether it was fetched with a client's cookies (``ClientCookies``): it and what is made
    /// from it are that client's, kept nowhere.
    var isPrivate: Bool { request.options.isSuperset(of: ClientCookies.cacheBypass) }
}
