// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A scripted HTTP/1.1 server on 127.0.0.1 for the loading tests: it writes raw bytes, so it can
/// lie about lengths, trickle, stall and loop redirects, and it counts the requests per path.
///
/// Routes (the path decides; a query string is ignored for routing):
/// - `/img/NAME`: the registered file, with `Content-Length`, its `Content-Type` and an `ETag`;
///   a matching `If-None-Match` gets 304.
/// - `/slow/NAME`: the same body in `chunk`-byte pieces `delay` ms apart (query `chunk`, `delay`).
/// - `/chunked/NAME`: chunked transfer encoding, 1000-byte chunks.
/// - `/nohead`: never answers.
/// - `/stall`: a head declaring 100000 bytes, 10 bytes, then nothing.
/// - `/status/N`: status N with a short text body.
/// - `/wrongtype/NAME`: the file as `text/html`.
/// - `/short/NAME`: declares the file's length + 1000, sends the file, closes.
/// - `/long/NAME`: declares 10 bytes, sends the whole file.
/// - `/huge`: declares 10 GB, sends nothing more.
/// - `/endless`: no length, sends 64 KiB pieces until the client leaves.
/// - `/loop/a`, `/loop/b`: redirect to each other. `/redirect/N/NAME`: N redirects, then the file.
/// - `/reused/NAME`: the file on a connection's first request; a later request on the same
///   connection is dropped unanswered (a server closing an idle kept-alive connection).
/// - `/gated/NAME`: the file in `parts` pieces (query, default 3); piece k > 0 waits until
///   ``openGate()`` has been called k times, so a test can pace the body by what it has seen.
/// - `/gzip/NAME`: the registered bytes as they are, declared `Content-Encoding: gzip`.
/// - `/headerflood`: a status line, then 1 KB header lines until the client leaves.
/// - `/garbage`: bytes that are not HTTP, then the connection closes.
/// - `CONNECT host:port`: answered 200, after which the same connection is served as if it were
///   the tunnel's far end (so a second server can play the proxy); counted under `CONNECT`.
/// - A connection opening with a SOCKS5 greeting is answered as a SOCKS5 proxy, then served as
///   the tunnel's far end; counted under `SOCKS`.
/// - `/drop`: closes the connection unanswered.
/// - `/flaky/NAME?cut=N&fail=K`: the first K requests get the head (`Accept-Ranges: bytes`, an
///   ETag, `Last-Modified`) and N bytes, then the connection closes; later ones are served whole
///   or, for a `Range: bytes=S-` whose `If-Range` still matches, from S (206). `etag=weak|none`,
///   `change=1` (other validators and bytes after the first request).
/// - `/busy/NAME?fail=K&after=S`: 503 with `Retry-After: S` for the first K requests, then the file.
/// - `/auth/NAME`: 401 unless `Authorization: Basic dXNlcjpwYXNz` (user:pass).
/// - `/away?to=URL`: a 302 redirect to the URL given (another host name for this server, say).
/// - `/bycookie/NAME`: the registered file the request's `pick` cookie names, else NAME.
/// - `/challenge/NAME`: NAME once the request carries the cookie `challenge=passed`; before, a
///   302 back to the same path that sets it (`Path=/challenge`, and `Domain=` the `domain` query).
public final class TestHTTPServer: Sendable {
    /// A registered file: its bytes, its `Content-Type` and any more header fields.
    public struct File: Sendable {
        var data: Data
        var contentType: String
        /// More header fields for `/img/` answers (200 and 304): `Cache-Control`, `Expires`.
        var headers: [(String, String)] = []
    }

    private let files = Mutex<[String: File]>([:])
    private let counts = Mutex<[String: Int]>([:])
    private let lastHeaders = Mutex<[String: [String: String]]>([:])
    private let gate = Mutex(0)
    private let channel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let acceptTask: Mutex<Task<Void, Never>?> = Mutex(nil)
    /// The connections being served, closed by ``stop()``; and whether it has begun.
    private let live = Mutex<(channels: [ObjectIdentifier: any Channel], stopping: Bool)>(([:], false))
    /// The port the server listens on, on 127.0.0.1 (0 if the socket had no address).
    public let port: Int
    /// Where the server's tasks run.
    private static let executor = DedicatedTaskExecutor(label: "imago.test-http-server")

    private let scheme: String

    private init(channel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, scheme: String) {
        self.channel = channel
        self.scheme = scheme
        port = channel.channel.localAddress?.port ?? 0
    }

    /// Starts a server on a free port; with `tls` (PEM certificate and key files) it speaks HTTPS.
    public static func start(tls: (certificate: String, key: String)? = nil) async throws -> TestHTTPServer {
        let context = try tls.map { tls in
            try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: NIOSSLCertificate.fromPEMFile(tls.certificate).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: tls.key, format: .pem))))
        }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 1024)
            .bind(host: "127.0.0.1", port: 0) { child in
                child.eventLoop.makeCompletedFuture {
                    if let context { try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child)
                }
            }
        let server = TestHTTPServer(channel: channel, scheme: tls == nil ? "http" : "https")
        // Off the cooperative pool: parallel tests that block it must not silence the server.
        let task = Task(executorPreference: Self.executor) {
            _ = try? await withThrowingDiscardingTaskGroup { group in
                try await channel.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await server.serve(connection) }
                    }
                }
            }
        }
        server.acceptTask.withLock { $0 = task }
        return server
    }

    /// Closes the listening socket and every connection, and waits for the accept loop to end.
    ///
    /// The loop is not cancelled: a connection accepted just before the socket closed would stay
    /// in its stream, never closed through `executeThenClose`, and NIO traps on that
    /// ("Deinited NIOAsyncWriter without calling finish()"; apple/swift-nio#3481). The loop serves
    /// such a connection by closing it at once. Only a loop still running after 5 s is cancelled.
    public func stop() async {
        let open = live.withLock { state in
            state.stopping = true
            return Array(state.channels.values)
        }
        try? await channel.channel.close()
        for connection in open { connection.close(promise: nil) }
        guard let task = acceptTask.withLock({ $0 }) else { return }
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await task.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return false
            }
            if await group.next() == false { task.cancel() }
            group.cancelAll()
        }
    }

    /// The server's URL for `path` (which starts with `/`): `https` when started with TLS, else `http`.
    public func url(_ path: String) -> URL {
        guard let url = URL(string: "\(scheme)://127.0.0.1:\(port)\(path)") else { preconditionFailure("'\(path)' does not make a URL") }
        return url
    }

    /// Serves `data` at `/img/{name}` (and the other routes that take a file name), with an
    /// `ETag` of its size and name, answering a matching `If-None-Match` with 304; `headers`
    /// are added to both answers.
    public func register(_ name: String, data: Data, contentType: String = "image/png", headers: [(String, String)] = []) {
        files.withLock { $0[name] = File(data: data, contentType: contentType, headers: headers) }
    }

    /// Requests seen for `path` (without query).
    public func count(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
    /// Requests seen in all, over every path (`CONNECT` and SOCKS tunnels included).
    public var totalCount: Int { counts.withLock { $0.values.reduce(0, +) } }
    /// The header fields of the last request for `path` (without query), by lowercased name;
    /// `nil` before one came.
    public func headers(_ path: String) -> [String: String]? { lastHeaders.withLock { $0[path] } }
    /// Lets `/gated/` send its next piece.
    public func openGate() { gate.withLock { $0 += 1 } }

    // MARK: Serving

    private struct Request {
        var method: String
        var path: String
        var query: [String: String]
        var headers: [String: String]
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let id = ObjectIdentifier(connection.channel)
        let stopping = live.withLock { state in
            if !state.stopping { state.channels[id] = connection.channel }
            return state.stopping
        }
        defer { live.withLock { _ = $0.channels.removeValue(forKey: id) } }
        if stopping {
            try? await connection.executeThenClose { _, _ in }
            return
        }
        try? await connection.executeThenClose { inbound, outbound in
            var pending = ByteBuffer()
            var served = 0
            var socks = SOCKSState.undecided
            for try await var piece in inbound {
                pending.writeBuffer(&piece)
                if socks != .done {
                    guard try await negotiateSOCKS(&pending, &socks, outbound) else { continue }
                }
                while let request = Self.parse(&pending) {
                    guard try await respond(request, outbound, reused: served > 0) else { return }
                    served += 1
                }
            }
        }
    }

    /// Waits `duration`, or less: once ``stop()`` has begun it throws, so that a route that
    /// holds its connection (a stall, a gate) lets the server stop.
    private func idle(for duration: Duration) async throws {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            if live.withLock({ $0.stopping }) { throw CancellationError() }
            try await Task.sleep(for: min(.milliseconds(10), end - ContinuousClock.now))
        }
    }

    private enum SOCKSState { case undecided, greeted, done }

    /// A SOCKS5 handshake when the connection opens with version byte 5 (no authentication, a
    /// CONNECT to any address), after which the connection is served as the tunnel's far end;
    /// counted under `SOCKS`. Returns whether HTTP may be parsed now.
    private func negotiateSOCKS(
        _ buffer: inout ByteBuffer, _ state: inout SOCKSState,
        _ out: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws -> Bool {
        let bytes = Array(buffer.readableBytesView)
        switch state {
        case .undecided:
            guard let first = bytes.first else { return false }
            guard first == 5 else {
                state = .done
                return true
            }
            guard bytes.count >= 2, bytes.count >= 2 + Int(bytes[1]) else { return false }
            buffer.moveReaderIndex(forwardBy: 2 + Int(bytes[1]))
            try await out.write(ByteBuffer(bytes: [5, 0]))
            state = .greeted
            return try await negotiateSOCKS(&buffer, &state, out)
        case .greeted:
            guard bytes.count >= 5 else { return false }
            let addressLength: Int
            switch bytes[3] {
            case 1: addressLength = 4
            case 4: addressLength = 16
            default: addressLength = 1 + Int(bytes[4])
            }
            guard bytes.count >= 4 + addressLength + 2 else { return false }
            buffer.moveReaderIndex(forwardBy: 4 + addressLength + 2)
            counts.withLock { $0["SOCKS", default: 0] += 1 }
            try await out.write(ByteBuffer(bytes: [5, 0, 0, 1, 127, 0, 0, 1, 0, 0]))
            state = .done
            return true
        case .done:
            return true
        }
    }

    private static func parse(_ buffer: inout ByteBuffer) -> Request? {
        let view = buffer.readableBytesView
        guard let end = view.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let headLength = end.upperBound - view.startIndex
        guard let text = buffer.readString(length: headLength) else { return nil }
        let lines = text.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        let method = parts.first.map(String.init) ?? "GET"
        let target = parts.count > 1 ? String(parts[1]) : "/"
        let comps = URLComponents(string: target)
        var query: [String: String] = [:]
        for item in comps?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if method == "CONNECT" { return Request(method: method, path: "CONNECT", query: [:], headers: headers) }
        // Decoded, unless its escapes are not UTF-8 (an old server's Latin-1 name): then as sent.
        let path = comps.flatMap { $0.percentEncodedPath.removingPercentEncoding == nil ? $0.percentEncodedPath : $0.path } ?? target
        return Request(method: method, path: path, query: query, headers: headers)
    }

    /// The writing half of one answer.
    private struct Reply {
        let out: NIOAsyncChannelOutboundWriter<ByteBuffer>

        func head(_ status: String, _ fields: [(String, String)]) async throws {
            var text = "HTTP/1.1 \(status)\r\n"
            for (k, v) in fields { text += "\(k): \(v)\r\n" }
            text += "\r\n"
            try await out.write(ByteBuffer(string: text))
        }

        func send(_ data: Data) async throws { try await out.write(ByteBuffer(bytes: data)) }

        func raw(_ text: String) async throws { try await out.write(ByteBuffer(string: text)) }

        /// A 200 with `file` whole, under `fields` added to its length and type.
        func whole(_ file: File, _ fields: [(String, String)] = []) async throws -> Bool {
            try await head("200 OK", [("Content-Length", "\(file.data.count)"), ("Content-Type", file.contentType)] + fields)
            try await send(file.data)
            return true
        }

        func notFound() async throws -> Bool {
            try await head("404 Not Found", [("Content-Length", "9"), ("Content-Type", "text/plain")])
            try await send(Data("not found".utf8))
            return true
        }
    }

    /// Writes the response; returns whether the connection stays open.
    private func respond(_ r: Request, _ out: NIOAsyncChannelOutboundWriter<ByteBuffer>, reused: Bool) async throws -> Bool {
        counts.withLock { $0[r.path, default: 0] += 1 }
        lastHeaders.withLock { $0[r.path] = r.headers }
        let reply = Reply(out: out)
        if r.method == "CONNECT" {
            try await reply.head("200 Connection established", [])
            return true
        }
        let parts = r.path.split(separator: "/").map(String.init)
        let route = parts.first ?? ""
        let file = parts.count > 1 ? files.withLock { $0[parts[1]] } : nil
        switch route {
        case "img", "wrongtype", "gzip", "auth", "busy", "reused", "bycookie", "challenge":
            return try await served(route, file, name: parts.count > 1 ? parts[1] : "", r, reply, reused: reused)
        case "slow", "gated", "chunked":
            guard let file else { return try await reply.notFound() }
            return try await paced(route, file, r, reply)
        case "flaky":
            guard let file else { return try await reply.notFound() }
            return try await flaky(file, r, reply)
        case "status", "loop", "redirect", "away":
            return try await redirected(route, parts, r, reply)
        case "nohead", "stall", "short", "long", "huge", "endless", "headerflood", "garbage", "drop":
            return try await broken(route, file, reply)
        default:
            return try await reply.notFound()
        }
    }

    /// `/img/`, `/wrongtype/`, `/gzip/`, `/auth/`, `/busy/` and `/reused/`: the file in one piece,
    /// when the route lets it through.
    private func served(_ route: String, _ file: File?, name: String, _ r: Request, _ reply: Reply, reused: Bool) async throws -> Bool {
        if route == "reused", reused { return false }
        if route == "auth", r.headers["authorization"] != "Basic dXNlcjpwYXNz" {
            try await reply.head("401 Unauthorized", [("Content-Length", "0"), ("WWW-Authenticate", "Basic realm=\"t\"")])
            return true
        }
        guard let file else { return try await reply.notFound() }
        switch route {
        case "img":
            let etag = "\"\(file.data.count)-\(name)\""
            if r.headers["if-none-match"] == etag {
                try await reply.head("304 Not Modified", [("ETag", etag), ("Content-Length", "0")] + file.headers)
                return true
            }
            return try await reply.whole(file, [("ETag", etag), ("Last-Modified", "Sun, 22 Nov 2026 08:00:00 GMT")] + file.headers)
        case "wrongtype":
            try await reply.head("200 OK", [("Content-Length", "\(file.data.count)"), ("Content-Type", "text/html; charset=utf-8")])
            try await reply.send(file.data)
            return true
        case "gzip":
            return try await reply.whole(file, [("Content-Encoding", "gzip")])
        case "bycookie":
            let picked = Self.cookie("pick", in: r.headers["cookie"]).flatMap { name in files.withLock { $0[name] } }
            return try await reply.whole(picked ?? file)
        case "challenge":
            guard Self.cookie("challenge", in: r.headers["cookie"]) == "passed" else {
                let domain = r.query["domain"].map { "; Domain=" + $0 } ?? ""
                let query = r.query["domain"].map { "?domain=" + $0 } ?? ""
                try await reply.head(
                    "302 Found", [("Location", r.path + query), ("Set-Cookie", "challenge=passed; Path=/challenge" + domain), ("Content-Length", "0")])
                return true
            }
            return try await reply.whole(file)
        case "busy":
            // The first `fail` requests get 503 with Retry-After: `after`.
            if counts.withLock({ $0[r.path] ?? 0 }) <= Int(r.query["fail"] ?? "") ?? 1 {
                try await reply.head("503 Service Unavailable", [("Content-Length", "0"), ("Retry-After", r.query["after"] ?? "1")])
                return true
            }
            return try await reply.whole(file)
        default:
            return try await reply.whole(file)
        }
    }

    /// The value of the cookie `name` in a `Cookie` field.
    private static func cookie(_ name: String, in field: String?) -> String? {
        for pair in (field ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == name { return parts[1] }
        }
        return nil
    }

    /// `/slow/`, `/gated/` and `/chunked/`: the file in pieces, paced or chunk-encoded.
    private func paced(_ route: String, _ f: File, _ r: Request, _ reply: Reply) async throws -> Bool {
        switch route {
        case "slow":
            let chunk = Int(r.query["chunk"] ?? "") ?? 1024
            let delay = Int(r.query["delay"] ?? "") ?? 20
            try await reply.head("200 OK", [("Content-Length", "\(f.data.count)"), ("Content-Type", f.contentType)])
            var offset = 0
            while offset < f.data.count {
                let end = min(f.data.count, offset + chunk)
                try await reply.send(f.data.subdata(in: offset..<end))
                offset = end
                if offset < f.data.count { try await Task.sleep(for: .milliseconds(delay)) }
            }
        case "gated":
            let pieces = max(1, Int(r.query["parts"] ?? "") ?? 3)
            try await reply.head("200 OK", [("Content-Length", "\(f.data.count)"), ("Content-Type", f.contentType)])
            for k in 0..<pieces {
                while gate.withLock({ $0 }) < k { try await idle(for: .milliseconds(2)) }
                try await reply.send(f.data.subdata(in: f.data.count * k / pieces..<f.data.count * (k + 1) / pieces))
            }
        default:
            try await reply.head("200 OK", [("Transfer-Encoding", "chunked"), ("Content-Type", f.contentType)])
            var offset = 0
            while offset < f.data.count {
                let end = min(f.data.count, offset + 1000)
                try await reply.raw(String(end - offset, radix: 16) + "\r\n")
                try await reply.send(f.data.subdata(in: offset..<end))
                try await reply.raw("\r\n")
                offset = end
            }
            try await reply.raw("0\r\n\r\n")
        }
        return true
    }

    /// `/flaky/NAME?cut=N&fail=K[&etag=weak|none][&change=1]`: the first K requests send the
    /// head and N bytes, then close; later ones serve Range requests whose If-Range still
    /// matches (206), else the whole body (200). `change` makes the validator differ after the
    /// first request; `etag=weak` sends a weak one, `none` only Last-Modified.
    private func flaky(_ f: File, _ r: Request, _ reply: Reply) async throws -> Bool {
        let n = counts.withLock { $0[r.path] ?? 0 }
        let cut = Int(r.query["cut"] ?? "") ?? f.data.count / 2
        let fails = Int(r.query["fail"] ?? "") ?? 1
        let changed = r.query["change"] == "1" && n > 1
        let tag = "\"\(f.data.count)-\(changed ? "v2" : "v1")\""
        var validators: [(String, String)] = [("Last-Modified", changed ? "Mon, 23 Nov 2026 08:00:00 GMT" : "Sun, 22 Nov 2026 08:00:00 GMT")]
        switch r.query["etag"] {
        case "weak": validators.append(("ETag", "W/" + tag))
        case "none": break
        default: validators.append(("ETag", tag))
        }
        let fields = [("Content-Type", f.contentType), ("Accept-Ranges", "bytes")] + validators
        if n <= fails {
            try await reply.head("200 OK", [("Content-Length", "\(f.data.count)")] + fields)
            try await reply.send(f.data.prefix(cut))
            return false
        }
        let current = validators.map(\.1)
        if let range = r.headers["range"], range.hasPrefix("bytes="), range.hasSuffix("-"),
            let start = Int(range.dropFirst(6).dropLast()), start < f.data.count,
            r.headers["if-range"].map({ current.contains($0) }) ?? true
        {
            try await reply.head(
                "206 Partial Content",
                [("Content-Length", "\(f.data.count - start)"), ("Content-Range", "bytes \(start)-\(f.data.count - 1)/\(f.data.count)")]
                    + fields)
            try await reply.send(f.data.dropFirst(start))
            return true
        }
        // A changed resource is served whole; with `change`, its bytes differ too.
        let body = changed ? Data(f.data.reversed()) : f.data
        try await reply.head("200 OK", [("Content-Length", "\(body.count)")] + fields)
        try await reply.send(body)
        return true
    }

    /// `/status/N` and the redirects: `/loop/a|b`, `/redirect/N/NAME` and `/away?to=URL`.
    private func redirected(_ route: String, _ parts: [String], _ r: Request, _ reply: Reply) async throws -> Bool {
        switch route {
        case "status":
            let code = parts.count > 1 ? parts[1] : "500"
            let body = "status \(code)"
            try await reply.head("\(code) Scripted", [("Content-Length", "\(body.utf8.count)"), ("Content-Type", "text/plain")])
            try await reply.send(Data(body.utf8))
        case "loop":
            let next = parts.count > 1 && parts[1] == "a" ? "/loop/b" : "/loop/a"
            try await reply.head("302 Found", [("Location", next), ("Content-Length", "0")])
        case "redirect":
            guard parts.count > 2, let n = Int(parts[1]) else { return try await reply.notFound() }
            let next = n <= 1 ? "/img/\(parts[2])" : "/redirect/\(n - 1)/\(parts[2])"
            try await reply.head("301 Moved Permanently", [("Location", next), ("Content-Length", "0")])
        default:
            guard let to = r.query["to"] else { return try await reply.notFound() }
            try await reply.head("302 Found", [("Location", to), ("Content-Length", "0")])
        }
        return true
    }

    /// The routes that break HTTP: no head, a stall, lengths that lie, endless bodies and
    /// headers, bytes that are not HTTP, a dropped connection. Returns `false` (closes) unless a
    /// file is missing.
    private func broken(_ route: String, _ file: File?, _ reply: Reply) async throws -> Bool {
        switch route {
        case "nohead":
            try await idle(for: .seconds(60))
        case "stall":
            try await reply.head("200 OK", [("Content-Length", "100000"), ("Content-Type", "image/png")])
            try await reply.send(Data(repeating: 0x89, count: 10))
            try await idle(for: .seconds(60))
        case "short", "long":
            guard let f = file else { return try await reply.notFound() }
            let declared = route == "short" ? f.data.count + 1000 : 10
            try await reply.head("200 OK", [("Content-Length", "\(declared)"), ("Content-Type", f.contentType)])
            try await reply.send(f.data)
        case "huge":
            try await reply.head("200 OK", [("Content-Length", "10000000000"), ("Content-Type", "image/png")])
            try await idle(for: .seconds(60))
        case "endless":
            try await reply.head("200 OK", [("Content-Type", "image/png"), ("Connection", "close")])
            let piece = Data(repeating: 0x42, count: 64 << 10)
            while true { try await reply.send(piece) }
        case "headerflood":
            try await reply.raw("HTTP/1.1 200 OK\r\n")
            let line = "X-Flood: " + String(repeating: "a", count: 1014) + "\r\n"
            while true { try await reply.raw(line) }
        case "garbage":
            try await reply.send(Data("SSH-2.0-OpenSSH_9.2\r\n\u{0}\u{1}\u{2}\u{3} not a status line\r\n\r\n".utf8))
        default:
            break
        }
        return false
    }
}
