// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

/// Waits (polling every millisecond) until `condition` holds, for at most `limit` of polling.
func pollUntil(_ limit: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async throws {
    try await poll(limit, every: .milliseconds(1), sourceLocation: sourceLocation, condition)
}

/// A signal async work waits on without polling. Waiting ignores cancellation, so work gated by
/// it runs to its end whatever happens to its caller.
final class OneShot: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Lets every waiter, present and future, through.
    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once ``open()`` has been called.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiters.append(continuation)
                return false
            }
            if isOpen { continuation.resume() }
        }
    }
}

/// Strings appended from any thread, in order.
final class EventLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A copy of `buffer` whose rows are `extra` bytes longer than its pixels, the padding filled with `fill`.
func paddedCopy(of buffer: PixelBuffer, extra: Int, fill: UInt8) throws -> PixelBuffer {
    let bpp = buffer.format.bytesPerPixel, tight = buffer.width * bpp, rowBytes = tight + extra
    var bytes = [UInt8](repeating: fill, count: rowBytes * buffer.height)
    for y in 0..<buffer.height {
        for i in 0..<tight { bytes[y * rowBytes + i] = buffer.bytes[y * buffer.bytesPerRow + i] }
    }
    return try PixelBuffer(width: buffer.width, height: buffer.height, format: buffer.format, bytesPerRow: rowBytes, bytes: bytes)
}
