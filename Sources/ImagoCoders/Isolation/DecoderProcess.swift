// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoSandbox
import ImagoCore

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One worker process as its host sees it: its pid, its end of the socket pair, whether it has
/// said it is ready. Owned by one thread at a time (the pool hands it out and takes it back).
struct DecoderProcess: Sendable {
    let pid: pid_t
    let socket: Int32
    /// The memory file its sources are written into, one after another.
    let sources: SourceFile
    /// Its sandbox report arrived: it has loaded its libraries and locked itself down.
    var ready = false
    /// Requests it has answered.
    var answered = 0
    /// The host may read its memory (`process_vm_readv`): its replies leave pixels where they lie.
    var direct = false

    /// Why an exchange ended without an answer; the process is gone (reaped) when this is thrown.
    struct Stopped: Error {
        var failure: DecoderIsolation.Failure
    }

    /// The worker was gone before it took the request (reaped when this is thrown): not the
    /// request's doing.
    struct Gone: Error {
        var failure: DecoderIsolation.Failure
    }

    /// The variables a worker is started with: those its decoders' libraries and the C runtime
    /// read (locale, time zone, fontconfig, glib, the dynamic loader, malloc, sanitisers), and
    /// nothing else of the host's. The host's keys, salts, secrets and object-store credentials
    /// stay out: a decoder an exploit has taken over cannot send them anywhere, but it could write
    /// them into the pixels it returns. The Swift runtime's crash backtracer is off (it would start
    /// a process, which the sandbox forbids).
    static func workerEnvironment(_ host: [String: String]) -> [String] {
        let names: Set<String> = [
            "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TZDIR", "TMPDIR", "GLIBC_TUNABLES", "LD_LIBRARY_PATH", "LD_PRELOAD"
        ]
        let prefixes = ["LC_", "XDG_", "FONTCONFIG_", "FC_", "MALLOC_", "G_", "GIO_", "GDK_", "PANGO_", "ASAN_", "UBSAN_", "LSAN_"]
        let kept = host.filter { name, _ in names.contains(name) || prefixes.contains { name.hasPrefix($0) } }
        return kept.map { "\($0.key)=\($0.value)" }.sorted() + ["SWIFT_BACKTRACE=enable=no"]
    }

    /// Starts a worker: `executable arguments…` with the socket as its descriptor 3 and the
    /// part of the host's environment its libraries read (``workerEnvironment(_:)``), then sends
    /// it `setup`.
    ///
    /// - Throws: `ImageCodingError.decoderFailed` when the process cannot be started.
    static func start(_ isolation: DecoderIsolation, setup: Data) throws -> DecoderProcess {
        var pair: [Int32] = [-1, -1]
        let made = pair.withUnsafeMutableBufferPointer { imago_socketpair($0.baseAddress) }
        guard made == 0 else { throw ImageCodingError.decoderFailed(.png, "no socket pair for a worker (errno \(-made))") }
        let environment = workerEnvironment(ProcessInfo.processInfo.environment)
        // `ps` shows the program's own name, not /proc/self/exe.
        let name = isolation.executable == "/proc/self/exe" ? CommandLine.arguments.first ?? isolation.executable : isolation.executable
        let argv: [UnsafeMutablePointer<CChar>?] = ([name] + isolation.arguments).map { strdup($0) } + [nil]
        let env: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            env.forEach { free($0) }
            close(pair[1])
        }
        let pid = imago_spawn(isolation.executable, argv, env, pair[1])
        guard pid > 0 else {
            close(pair[0])
            throw ImageCodingError.decoderFailed(.png, "the worker \(isolation.executable) cannot be started (errno \(-pid))")
        }
        let process = DecoderProcess(pid: pid, socket: pair[0], sources: SourceFile())
        _ = setup.withUnsafeBytes { imago_send(pair[0], $0.baseAddress, $0.count, -1) }
        return process
    }

    /// Waits for the worker's sandbox report, at most `timeout`, and reads `probe`'s bytes where
    /// the report says the worker keeps them: where they are there, the host may read its pixels
    /// in its memory (``direct``); a host that may not (a seccomp profile, Yama's scope 2) reads
    /// them from the reply file.
    ///
    /// - Throws: ``Stopped`` when it dies or does not report in time.
    mutating func awaitReady(timeout: Duration, probe: [UInt8]) throws -> IsolationWire.Ready {
        let (body, fd) = try receive(timeout: timeout)
        if fd >= 0 { close(fd) }
        guard let ready = try? IsolationWire.decode(IsolationWire.Ready.self, from: body) else {
            throw stop(.exited("a start-up message it cannot have sent"))
        }
        self.ready = true
        if let address = ready.probe {
            var seen = [UInt8](repeating: 0, count: probe.count)
            let status = seen.withUnsafeMutableBytes { imago_read_process(pid, address, $0.baseAddress, $0.count) }
            direct = status == 0 && seen == probe
        }
        return ready
    }

    /// Writes `source` into the worker's source file, sends `request` with it and waits for the
    /// reply, at most `timeout`: the reply and its memory file (-1 when none came).
    ///
    /// - Throws: `ImageCodingError.decoderFailed` when the source cannot be written, ``Gone``
    ///   when the worker had died before the request reached it, ``Stopped`` when it dies on the
    ///   request, overruns or breaks the protocol.
    mutating func exchange(_ request: Data, source: Data, format: ImageFormat, timeout: Duration) throws -> (IsolationWire.Reply, Int32) {
        let file = try sources.write(source, format: format)
        let sent = request.withUnsafeBytes { imago_send(socket, $0.baseAddress, $0.count, file) }
        guard sent >= 0 else { throw Gone(failure: stop(nil).failure) }
        let (body, fd) = try receive(timeout: timeout)
        guard let reply = try? IsolationWire.decode(IsolationWire.Reply.self, from: body) else {
            if fd >= 0 { close(fd) }
            throw stop(.exited("a reply that does not parse"))
        }
        answered += 1
        return (reply, fd)
    }

    private func receive(timeout: Duration) throws -> (Data, Int32) {
        var buffer = [UInt8](repeating: 0, count: IsolationWire.maxMessage)
        var fd: Int32 = -1
        let ms = Int32(clamping: Int((timeout.inSeconds * 1000).rounded(.up)))
        let n = buffer.withUnsafeMutableBytes { imago_receive(socket, $0.baseAddress, $0.count, &fd, ms) }
        if n > 0 { return (Data(buffer[0..<n]), fd) }
        if n == -Int(ETIMEDOUT) { throw stop(.timedOut(timeout)) }
        if n == 0 { throw stop(nil) }
        throw stop(.exited("its socket failed (errno \(-n))"))
    }

    /// Kills the process (whatever it is doing), reaps it and closes the socket: the error that
    /// says why it stopped, `reason` or else what its exit status tells.
    func stop(_ reason: DecoderIsolation.Failure?) -> Stopped {
        var code: Int32 = 0, signal: Int32 = 0
        var waited: Int32 = 0
        if reason == nil {
            // Its socket closed: it is exiting, and its own status says why. Give it a moment.
            for _ in 0..<200 {
                waited = imago_wait(pid, 0, &code, &signal)
                if waited != 0 { break }
                usleep(5_000)
            }
        }
        if waited == 0 {
            _ = imago_kill(pid)
            waited = imago_wait(pid, 1, &code, &signal)
        }
        close(socket)
        if let reason { return Stopped(failure: reason) }
        guard waited > 0 else { return Stopped(failure: .exited("it cannot be waited for (errno \(-waited))")) }
        if signal == SIGSYS { return Stopped(failure: .stoppedBySandbox) }
        if signal == SIGKILL || signal == SIGXCPU { return Stopped(failure: .exited("it was killed (\(Self.name(of: signal)))")) }
        if signal != 0 { return Stopped(failure: .crashed(signal: signal, name: Self.name(of: signal))) }
        return Stopped(failure: .exited("it exited with status \(code)"))
    }

    /// Retires a healthy worker: closing its socket ends its loop; it is killed and reaped in
    /// case it does not.
    func retire() {
        _ = stop(.exited("retired"))
    }

    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        case SIGSYS: "SIGSYS"
        case SIGXCPU: "SIGXCPU"
        case SIGXFSZ: "SIGXFSZ"
        default: "signal \(signal)"
        }
    }
}

/// The memory file a host writes a worker's sources into, each from offset 0 (the request says
/// how long it is): one file for the worker's life, so that a source is one copy into pages the
/// kernel already has. The host only writes it, never maps or reads it, so whatever the worker
/// does to it (write, truncate) can harm nothing but the worker's own decodes.
final class SourceFile: @unchecked Sendable {
    // Used by the one thread that holds its DecoderProcess (the pool hands processes out one at
    // a time), which is what makes it Sendable.
    private var fd: Int32 = -1
    private var capacity = 0

    deinit { if fd >= 0 { close(fd) } }

    /// Writes `data` from offset 0, returning the file's descriptor (the file's, kept; not to be
    /// closed).
    ///
    /// - Throws: `ImageCodingError.decoderFailed` when the file cannot be made or written.
    func write(_ data: Data, format: ImageFormat) throws -> Int32 {
        if fd < 0 {
            fd = imago_memfd("imago-source")
            guard fd >= 0 else { throw ImageCodingError.decoderFailed(format, "no memory file for the source (errno \(-fd))") }
        }
        // A file far larger than this source (after a large one) gives its memory back.
        if IsolationWire.keptFileShrinks(capacity: capacity, needed: data.count), ftruncate(fd, off_t(data.count)) == 0 { capacity = data.count }
        let written = data.withUnsafeBytes { imago_write_all(fd, $0.baseAddress, $0.count, 0) }
        guard written == 0 else { throw ImageCodingError.decoderFailed(format, "the source cannot be handed over (errno \(-written))") }
        capacity = max(capacity, data.count)
        return fd
    }
}
