// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// The bytes and head of one transfer, written only by the task running the loader and read by
/// the transfer after that task has finished (the bytes also by progressive decoders, through
/// their own lock).
final class TransferSink: @unchecked Sendable {
    let received = ReceivedBytes()
    var response: DataLoadResponse?
    var notModified = false
    /// The bytes kept of an earlier transfer that this one asked the rest of (`Range`).
    var resuming: ResumableDownloads.Entry?
    /// The whole body's length when the answer is the rest of it (206: from `Content-Range`).
    var expectedTotal: Int?

    /// The body's declared length: the whole of a resumed one, else `Content-Length`.
    var expectedLength: Int? { expectedTotal ?? response?.expectedContentLength }
}
