// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoSandbox
import Dispatch
import ImagoCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The worker processes of one ``DecoderIsolation``: started together at the first request (or
/// ``prestart()``), handed to one request at a time, replaced the moment one stops. A request
/// waits for a free worker on its own thread (the callers are the pipeline's work-queue
/// threads, never Swift's cooperative pool).
final class DecoderPool: Sendable {
    let isolation: DecoderIsolation
    private let setup: Data
    private let slots: DispatchSemaphore
    private let state = Mutex(State())
    private let quarantine: Mutex<DecodeQuarantine>
    private let starting = Mutex(())
    /// Random bytes each worker keeps and names (``IsolationWire/Ready/probe``): read where it
    /// says they are, they tell whether this host may read a worker's pixels in its memory.
    private let probe = (0..<16).map { _ in UInt8.random(in: 0...255) }
    /// CPU seconds a request may use beyond its timeout: a single-threaded decoder that runs past
    /// its time is stopped by the host (a timeout, 422), before the kernel's limit (SIGXCPU).
    static let cpuGrace = 2
    /// The longest a worker may take to load its libraries and lock itself down.
    static let startTimeout = Duration.seconds(120)

    private struct State {
        var idle: [DecoderProcess] = []
        var statistics = DecoderIsolation.Statistics()
        /// Sandbox reports already passed on: each different one is told once.
        var reports: Set<String> = []
        /// The workers were started (``prestart()``).
        var started = false
    }

    init(_ isolation: DecoderIsolation) {
        self.isolation = isolation
        let frame = isolation.memoryLimit
        setup =
            (try? IsolationWire.encode(
                IsolationWire.Setup(
                    formats: isolation.formats.sorted { $0.rawValue < $1.rawValue }, video: isolation.video, memoryLimit: isolation.memoryLimit,
                    fileSizeLimit: frame, seccomp: isolation.sandbox.seccomp, landlock: isolation.sandbox.landlock,
                    namespaces: isolation.sandbox.namespaces, readablePaths: isolation.sandbox.readablePaths, probe: probe,
                    cpuSeconds: Int(isolation.timeout.inSeconds.rounded(.up)) + Self.cpuGrace))) ?? Data()
        slots = DispatchSemaphore(value: isolation.workers)
        quarantine = Mutex(DecodeQuarantine(duration: isolation.quarantine))
    }

    /// Starts every worker not started yet (the first request does it otherwise).
    ///
    /// - Throws: `ImageCodingError.decoderFailed` when a worker cannot be started.
    func prestart() throws {
        guard !state.withLock({ $0.started }) else { return }
        // Held while the workers start (a few spawns, no waiting on them): a request that comes
        // meanwhile waits for them rather than starting more.
        try starting.withLock { _ in
            guard !state.withLock({ $0.started }) else { return }
            for _ in 0..<isolation.workers {
                let process = try start()
                state.withLock { $0.idle.append(process) }
            }
            state.withLock { $0.started = true }
        }
    }

    deinit {
        for process in state.withLock({ $0.idle }) { process.retire() }
    }

    /// Counts so far.
    var statistics: DecoderIsolation.Statistics {
        var s = state.withLock { $0.statistics }
        s.quarantined = quarantine.withLock { $0.count }
        return s
    }

    /// Sends one request with `source` to a worker, after checking the quarantine, and reads its
    /// reply with `read` (given the reply and its memory file, -1 when none came, closed after)
    /// before the worker takes another request.
    ///
    /// - Throws: the error the worker answered with (through `read`), or
    ///   `ImageCodingError.decoderFailed` when the source is quarantined, when no worker can be
    ///   started, when the worker stops without answering, or when `read` finds its reply
    ///   malformed (the worker is then killed and replaced, and the source quarantined).
    func run<T>(_ request: IsolationWire.Request, source: Data, read: (IsolationWire.Reply, IsolatedImageReader.Origin) throws -> T) throws -> T {
        let format = request.format
        if let age = quarantine.withLock({ $0.age(of: source) }) {
            state.withLock { $0.statistics.quarantineHits += 1 }
            isolation.onEvent?(.quarantineHit(format))
            throw ImageCodingError.decoderFailed(
                format, "the data is quarantined: a decoder stopped on the same bytes \(Int(age.inSeconds)) s ago")
        }
        try prestart()
        var request = request
        request.sourceLength = source.count
        slots.wait()
        defer { slots.signal() }
        let (process, reply, replyFile) = try exchange(request, source: source)
        defer { if replyFile >= 0 { close(replyFile) } }
        do {
            let value = try read(reply, IsolatedImageReader.Origin(fd: replyFile, pid: process.direct ? process.pid : nil))
            giveBack(process)
            return value
        } catch let error as IsolatedImageReader.Malformed {
            // A worker that lies about its reply is broken, or taken over: it goes.
            let stopped = process.stop(.exited("a malformed reply: \(error.what)"))
            failed(stopped.failure, format: format, source: source)
            throw ImageCodingError.decoderFailed(format, "\(stopped.failure); the data is quarantined")
        } catch {
            giveBack(process)
            throw error
        }
    }

    /// Hands the request to a ready worker and waits for its reply. A worker that was gone
    /// before it took the request (it died idle, or while starting) is no fault of the source's:
    /// it is replaced and the request goes to the new one, once.
    ///
    /// - Throws: `ImageCodingError.decoderFailed`: the worker stopped on the request (the source
    ///   is quarantined), or no worker could take it.
    private func exchange(_ request: IsolationWire.Request, source: Data) throws -> (DecoderProcess, IsolationWire.Reply, Int32) {
        let format = request.format
        var attempts = 0
        while true {
            attempts += 1
            var process = try take()
            do {
                if !process.ready { try ready(&process) }
                var request = request
                request.direct = process.direct
                let body = try IsolationWire.encode(request)
                let (reply, replyFile) = try process.exchange(body, source: source, format: format, timeout: isolation.timeout)
                return (process, reply, replyFile)
            } catch let gone as DecoderProcess.Gone {
                lost(gone.failure, format: format)
                guard attempts < 2 else { throw ImageCodingError.decoderFailed(format, "no decoder worker could take it: \(gone.failure)") }
            } catch let stopped as DecoderProcess.Stopped {
                failed(stopped.failure, format: format, source: source)
                throw ImageCodingError.decoderFailed(format, "\(stopped.failure); the data is quarantined")
            }
        }
    }

    // MARK: Workers

    private func start() throws -> DecoderProcess {
        guard isolation.executable != "/proc/self/exe" || DecoderWorker.hostsWorkers.load(ordering: .relaxed) else {
            throw ImageCodingError.decoderFailed(
                isolation.formats.sorted { $0.rawValue < $1.rawValue }.first ?? .pdf,
                "this program cannot start decoder workers: its main must call DecoderWorker.runIfRequested() first")
        }
        let process = try DecoderProcess.start(isolation, setup: setup)
        state.withLock { $0.statistics.liveWorkers += 1 }
        isolation.onEvent?(.workerStarted(pid: process.pid))
        return process
    }

    /// An idle worker, or a new one when none is (one that failed to start earlier).
    private func take() throws -> DecoderProcess {
        if let process = state.withLock({ $0.idle.popLast() }) { return process }
        return try start()
    }

    /// Waits for a new worker's sandbox report.
    ///
    /// - Throws: ``DecoderProcess/Gone`` when it dies or does not report in time.
    private func ready(_ process: inout DecoderProcess) throws {
        // Starting takes loading the libraries: on a loaded machine, longer than a decode may.
        let ready: IsolationWire.Ready
        do {
            ready = try process.awaitReady(timeout: max(isolation.timeout, Self.startTimeout), probe: probe)
        } catch let stopped as DecoderProcess.Stopped {
            throw DecoderProcess.Gone(failure: stopped.failure)
        }
        let lines = ready.report.split(separator: "\n").map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
        guard !lines.isEmpty, state.withLock({ $0.reports.insert(lines.joined(separator: "\n")).inserted }) else { return }
        for line in lines { isolation.onEvent?(.sandboxIncomplete(line)) }
    }

    /// Puts a worker whose reply was read back among the idle ones, or retires it after its
    /// last decode.
    private func giveBack(_ process: DecoderProcess) {
        guard process.answered >= isolation.decodesPerWorker else {
            state.withLock { $0.idle.append(process) }
            return
        }
        process.retire()
        replace()
    }

    /// A worker stopped on `source`: it is quarantined, counted and the worker replaced.
    private func failed(_ failure: DecoderIsolation.Failure, format: ImageFormat, source: Data) {
        quarantine.withLock { $0.add(source) }
        lost(failure, format: format)
    }

    /// A worker is gone: counted, told and replaced.
    private func lost(_ failure: DecoderIsolation.Failure, format: ImageFormat) {
        state.withLock {
            switch failure {
            case .crashed, .exited: $0.statistics.crashes += 1
            case .stoppedBySandbox, .timedOut: $0.statistics.kills += 1
            }
        }
        isolation.onEvent?(.workerFailed(format, failure))
        replace()
    }

    /// Starts a worker in place of one that has gone (reaped already).
    private func replace() {
        state.withLock { $0.statistics.liveWorkers -= 1 }
        guard let process = try? start() else { return }
        state.withLock {
            $0.idle.append(process)
            $0.statistics.replacements += 1
        }
        isolation.onEvent?(.workerReplaced)
    }
}

/// Sources a worker stopped on, by a keyed hash of their bytes (SipHash with this process's
/// random seed, so no one can aim a collision at another source), each for a while.
struct DecodeQuarantine {
    let duration: Duration
    private var entries: [Key: ContinuousClock.Instant] = [:]
    /// The most sources held; the oldest go first past it.
    static let capacity = 10_000

    private struct Key: Hashable {
        var hash: Int
        var count: Int
    }

    init(duration: Duration) {
        self.duration = duration
    }

    var count: Int {
        let now = ContinuousClock.now
        return entries.values.filter { now - $0 < duration }.count
    }

    private static func key(_ data: Data) -> Key {
        var hasher = Hasher()
        data.withUnsafeBytes { hasher.combine(bytes: $0) }
        return Key(hash: hasher.finalize(), count: data.count)
    }

    /// How long ago `data` was quarantined, when it still is.
    mutating func age(of data: Data) -> Duration? {
        guard !entries.isEmpty else { return nil }
        let key = Self.key(data)
        guard let since = entries[key] else { return nil }
        let age = ContinuousClock.now - since
        guard age < duration else {
            entries[key] = nil
            return nil
        }
        return age
    }

    mutating func add(_ data: Data) {
        let now = ContinuousClock.now
        if entries.count >= Self.capacity {
            entries = entries.filter { now - $0.value < duration }
            if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value < $1.value }) { entries[oldest.key] = nil }
        }
        entries[Self.key(data)] = now
    }
}
