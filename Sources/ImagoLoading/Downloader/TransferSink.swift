// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// The bytes and head of one transfer, written only by the task running the loader and read by
/// the transfer after that task has finished (the bytes also by progressive decoders, through
/// their own lock).
final class TransferSink: @unchecked Sendable {
    let received = ReceivedBytes()
    var response: DataLoadResponse?
    var notModified = false
}
