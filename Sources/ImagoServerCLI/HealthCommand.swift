// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import Foundation
import ImagoServer

#if canImport(Glibc)
import Glibc
#endif

/// `imago-server health`: asks the running service for `/health` at the address its settings
/// give (`IMAGO_BIND`, `IMAGO_NETWORK`, `IMAGO_PATH_PREFIX`), as `imgproxy health` does, for a
/// container's health check. Exits 0 when it answers 200 and 1 otherwise, with its answer (or
/// why there was none) on standard error.
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health", abstract: "Check the running service's /health at its settings' address: exit 0 on 200 (a container's health check).")

    @Option(help: "Seconds to wait for the connection and for the answer.")
    var timeout = 5

    func run() throws {
        let (configuration, _) = try ServeCommand.settings(environment: ProcessInfo.processInfo.environment, flags: [:])
        let address = try configuration.http.listenAddress()
        let answer: (status: Int, body: Data)
        do {
            answer = try HealthProbe.get(
                path: configuration.http.pathPrefix + "/health", host: address.host, port: address.port, unix: address.unix,
                timeout: max(1, timeout))
        } catch {
            FileHandle.standardError.write(Data("imago-server health: \(error.reason)\n".utf8))
            throw ExitCode(1)
        }
        FileHandle.standardError.write(answer.body.prefix(1024))
        guard answer.status == 200 else { throw ExitCode(1) }
    }
}

/// One `GET` over a plain socket (TCP or Unix), without an HTTP client's start-up: the status and
/// the body of the answer. Blocking, with the given timeout for the connection and each read.
enum HealthProbe {
    /// Why no answer came.
    struct Failure: Error {
        var reason: String
    }

    /// The answer's status and body (at most 64 KiB) to `GET path` at `host:port`, or at the
    /// socket `host` names when `unix`. A wildcard host (`0.0.0.0`, `::`) is asked on loopback.
    ///
    /// - Throws: ``Failure`` when no connection is made or no HTTP answer comes in time.
    static func get(path: String, host: String, port: Int, unix: Bool, timeout: Int) throws(Failure) -> (status: Int, body: Data) {
        let fd = unix ? try connectUnix(host) : try connectTCP(host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host, port, timeout)
        defer { close(fd) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.0\r\nHost: imago\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw Failure(reason: "the request could not be sent (errno \(errno))")
        }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while answer.count < 64 << 10 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { throw Failure(reason: "no answer within \(timeout) s (errno \(errno))") }
            if n == 0 { break }
            answer += chunk[..<n]
        }
        let text = String(decoding: answer, as: UTF8.self)
        let fields = text.split(separator: " ", maxSplits: 2)
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/"), let status = Int(fields[1]) else {
            throw Failure(reason: "not an HTTP answer: \(text.prefix(80))")
        }
        let end = answer.indices.dropLast(3).first { answer[$0...$0 + 3].elementsEqual("\r\n\r\n".utf8) }
        return (status, end.map { Data(answer[($0 + 4)...]) } ?? Data())
    }

    /// A connected socket to `host:port`, each of its addresses tried in turn.
    private static func connectTCP(_ host: String, _ port: Int, _ timeout: Int) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw Failure(reason: "\(host) cannot be resolved")
        }
        defer { freeaddrinfo(first) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        for info in sequence(first: first, next: { $0.pointee.ai_next }) {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            close(fd)
        }
        throw Failure(reason: "nothing answers at \(host):\(port) (errno \(errno))")
    }

    /// A connected socket to the Unix socket at `path`.
    private static func connectUnix(_ path: String) throws(Failure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(reason: "'\(path)' is too long for a socket") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(reason: "no socket (errno \(errno))") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(reason: "nothing answers at \(path) (errno \(errno))")
        }
        return fd
    }
}
