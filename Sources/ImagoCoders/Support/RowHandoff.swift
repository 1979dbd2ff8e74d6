// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Dispatch
import ImagoCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Rows handed from the thread that decodes them to a helper thread that finishes them (colour
/// conversion, premultiplying, the consumer's encode), a band at a time, so that a streamed
/// conversion's two halves run on two cores, as libvips runs a load and a save.
///
/// The decoding thread copies each row into the current band (``append(_:y:)``); a full band
/// goes to the helper through a ring of ``bands`` buffers, and the decoder waits only when all
/// of them are still being finished, so memory stays at `bands` × `bandRows` rows. Rows reach
/// `finish` in order, each band once. The helper's first error stops it: ``append(_:y:)``
/// throws it at the next row, and ``close()`` throws it after the helper has stopped.
///
/// One producer (the decoding thread) and one consumer (the helper thread, a thread of its own,
/// so it progresses whatever Dispatch's pool is doing); a band's rows and bounds cross between
/// them only through the semaphores, which order every write before the read on the other side.
final class RowHandoff: @unchecked Sendable {
    /// Finishes `rows` rows starting at row `firstY`, `bytesPerRow` apart, on the helper thread.
    typealias Finish = (_ band: UnsafeMutableRawPointer, _ firstY: Int, _ rows: Int) throws -> Void

    /// The buffers in the ring.
    static let bands = 3

    private let bytesPerRow: Int
    private let bandRows: Int
    private let finish: Finish
    private let storage: UnsafeMutableRawPointer
    /// Each band's first row and row count, written before its `full` signal; -1 rows ends the
    /// helper. Raw memory: the two threads touch different bands' entries at the same time.
    private let bounds: UnsafeMutablePointer<(firstY: Int, rows: Int)>
    private let free = DispatchSemaphore(value: RowHandoff.bands)
    private let full = DispatchSemaphore(value: 0)
    private let failure = Mutex<(any Error)?>(nil)
    private var thread: pthread_t?
    /// The producer's band and its filled rows.
    private var current = 0
    private var filled = 0
    private var firstY = 0

    /// Starts the helper thread.
    ///
    /// - Throws: `.invalidArgument` when the thread cannot be started.
    init(bytesPerRow: Int, bandRows: Int = 16, finish: @escaping Finish) throws {
        self.bytesPerRow = bytesPerRow
        self.bandRows = bandRows
        self.finish = finish
        storage = UnsafeMutableRawPointer.allocate(byteCount: max(1, Self.bands * bandRows * bytesPerRow), alignment: 64)
        bounds = .allocate(capacity: Self.bands)
        bounds.initialize(repeating: (0, 0), count: Self.bands)
        free.wait()  // the producer holds band 0
        var handle = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(
            &handle, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<RowHandoff>.fromOpaque(context).takeRetainedValue().helper()
                return nil
            }, context)
        guard started == 0 else {
            Unmanaged<RowHandoff>.fromOpaque(context).release()
            throw ImageCodingError.invalidArgument("no helper thread for the rows (pthread_create: \(started))")
        }
        thread = handle
    }

    deinit {
        storage.deallocate()
        bounds.deallocate()
    }

    /// Copies row `y` (`bytesPerRow` bytes; rows come in order) into the current band, handing
    /// the band over when it is full.
    ///
    /// - Throws: the helper's error, once it has failed.
    func append(_ row: UnsafeRawPointer, y: Int) throws {
        if let error = failure.withLock({ $0 }) { throw error }
        if filled == 0 { firstY = y }
        (storage + (current * bandRows + filled) * bytesPerRow).copyMemory(from: row, byteCount: bytesPerRow)
        filled += 1
        if filled == bandRows { handOver(rows: filled) }
    }

    /// Hands over the last rows, waits for the helper to finish them and stop.
    ///
    /// - Throws: the helper's error.
    func close() throws {
        stop(finishing: true)
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Stops the helper once it has finished the bands handed over (and, `finishing`, the rows
    /// of the current band), and waits for it; nothing after a first call. Whoever starts a
    /// handoff stops it, on its error paths too: the helper holds it until then.
    func stop(finishing: Bool = false) {
        guard let thread else { return }
        if finishing, filled > 0 { handOver(rows: filled) }
        bounds[current] = (0, -1)
        full.signal()
        pthread_join(thread, nil)
        self.thread = nil
    }

    private func handOver(rows: Int) {
        bounds[current] = (firstY, rows)
        full.signal()
        free.wait()
        current = (current + 1) % Self.bands
        filled = 0
    }

    /// The helper thread: finishes bands in order until the end marker; after an error it only
    /// frees them, so the producer never waits on it.
    private func helper() {
        var band = 0
        while true {
            full.wait()
            let (first, rows) = bounds[band]
            if rows < 0 { return }
            if failure.withLock({ $0 }) == nil {
                do {
                    try finish(storage + band * bandRows * bytesPerRow, first, rows)
                } catch {
                    failure.withLock { $0 = error }
                }
            }
            band = (band + 1) % Self.bands
            free.signal()
        }
    }
}
