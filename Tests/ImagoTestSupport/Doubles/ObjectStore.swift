// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// A real object store for the tests: Debian's OpenStack Swift as one node on loopback, serving
/// the S3 API (`s3api`, Signature V4, path-style) and the Swift API (tempauth) on one port,
/// started by `scripts/objectstore` once per test process and stopped when the process ends.
///
/// S3: access key `test:tester`, secret `testing`, region `us-east-1`. Swift: user
/// `test:tester`, key `testing` at `/auth/v1.0`, account `AUTH_test`. ``gets(_:)`` counts the
/// `GET`s of a path in the proxy's own access log.
public final class ObjectStore: Sendable {
    /// The proxy's port on 127.0.0.1.
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public let url: URL
    /// The Keystone stand-in's base URL (`/v3` and `/v2.0` below it), whose tokens are this
    /// store's: user `tester`, password `testing`, domain `Default`, project `test`.
    public let keystone: URL
    private let accessLog: URL
    private let client = HTTPClient(eventLoopGroupProvider: .singleton)

    /// Whether the store's packages are installed (scripts/bootstrap installs them).
    public static let isInstalled =
        FileManager.default.fileExists(atPath: "/usr/bin/swift-proxy-server") && FileManager.default.fileExists(atPath: "/usr/bin/memcached")
    /// Why object-store tests cannot run.
    public static let missingReason: Comment = "OpenStack Swift is not installed: run scripts/bootstrap"

    private static let started = Mutex<Task<ObjectStore, any Error>?>(nil)
    private static let keepAlive = Pipe()

    private let memcachedPort: Int

    private init(port: Int, url: URL, keystone: URL, memcachedPort: Int, accessLog: URL) {
        self.memcachedPort = memcachedPort
        self.port = port
        self.url = url
        self.keystone = keystone
        self.accessLog = accessLog
    }

    /// The store of this test process, started on first use (about 4 s).
    ///
    /// - Throws: when `scripts/objectstore` fails or does not become ready.
    public static func shared() async throws -> ObjectStore {
        let task = started.withLock { task in
            if let task { return task }
            let made = Task { try await start() }
            task = made
            return made
        }
        return try await task.value
    }

    private static func start() async throws -> ObjectStore {
        let root = TestFiles.projectRoot
        let dir = try TestFiles.temporaryDirectory("imago-objectstore")
        let process = Process()
        process.executableURL = root.appendingPathComponent("scripts/objectstore")
        process.arguments = ["--dir", dir.appendingPathComponent("store").path, "--watch", "\(ProcessInfo.processInfo.processIdentifier)"]
        let out = Pipe()
        process.standardOutput = out
        // Its input stays open as long as this process lives: when it ends, the store stops.
        process.standardInput = keepAlive
        // Not this process's standard error: the test runner waits for that to close.
        _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("objectstore.log").path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: dir.appendingPathComponent("objectstore.log"))
        try process.run()
        // The first line says where it listens, once it is ready.
        let line = await blocking { () -> Data in
            var line = Data()
            while true {
                let byte = out.fileHandleForReading.readData(ofLength: 1)
                if byte.isEmpty || byte == Data([0x0A]) { return line }
                line.append(byte)
            }
        }
        struct Ready: Decodable {
            let port: Int
            let keystone: URL
            let memcached: Int
            let access_log: String
        }
        let ready = try JSONDecoder().decode(Ready.self, from: line)
        guard let url = URL(string: "http://127.0.0.1:\(ready.port)") else { throw StoreError("port \(ready.port) makes no URL") }
        return ObjectStore(
            port: ready.port, url: url, keystone: ready.keystone, memcachedPort: ready.memcached, accessLog: URL(fileURLWithPath: ready.access_log))
    }

    /// A tempauth token for `test:tester`.
    public func token() async throws -> String {
        var request = HTTPClientRequest(url: url.absoluteString + "/auth/v1.0")
        request.headers.add(name: "X-Auth-User", value: "test:tester")
        request.headers.add(name: "X-Auth-Key", value: "testing")
        let response = try await client.execute(request, timeout: .seconds(10))
        guard let token = response.headers.first(name: "X-Auth-Token") else { throw StoreError("no token (status \(response.status.code))") }
        return token
    }

    /// Forgets every token the store gave (they live in its memcached): the next request with
    /// one is answered 401, as after a token's expiry.
    public func expireTokens() async throws {
        let (status, out, err) = try await Subprocess.run(
            URL(fileURLWithPath: "/bin/bash"),
            ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(memcachedPort); printf 'flush_all\\r\\n' >&3; head -c 4 <&3"])
        guard status == 0, out.hasPrefix("OK") else { throw StoreError("memcached flush_all failed: \(out) \(err)") }
    }

    /// Creates container (S3 bucket) `name`; an existing one is kept.
    public func createContainer(_ name: String) async throws {
        _ = try await swift("PUT", "/\(name)", body: nil, headers: [:], expecting: [201, 202])
    }

    /// Stores `data` as `object` in `container` through the Swift API (readable through S3 as
    /// `s3://CONTAINER/OBJECT`), with `headers` (`Content-Type`, `Cache-Control`).
    public func put(_ container: String, _ object: String, data: Data, headers: [String: String] = [:]) async throws {
        _ = try await swift("PUT", "/\(container)/\(object)", body: data, headers: headers, expecting: [201])
    }

    /// Creates container `name` (an existing one is kept) holding `data` as `dir/photo one.jpg`,
    /// with `headers`: the object the source tests fetch. Returns `data`.
    public func photo(in name: String, data: Data, headers: [String: String] = ["Content-Type": "image/jpeg"]) async throws -> Data {
        try await createContainer(name)
        try await put(name, "dir/photo one.jpg", data: data, headers: headers)
        return data
    }

    /// Deletes `object` from `container`.
    public func delete(_ container: String, _ object: String) async throws {
        _ = try await swift("DELETE", "/\(container)/\(object)", body: nil, headers: [:], expecting: [204, 404])
    }

    /// The `GET`s the proxy logged for `path`, as the client sent it (`/bucket/dir/a%20b.jpg`;
    /// the log quotes its `%` again). The proxy logs a request once its answer is sent, so this
    /// waits until the count holds for 150 ms (at most 3 s).
    public func gets(_ path: String) async throws -> Int {
        let logged = path.replacingOccurrences(of: "%", with: "%25")
        func count() -> Int {
            let text = (try? String(contentsOf: accessLog, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").filter { $0.contains(" GET \(logged) ") }.count
        }
        var last = count()
        for _ in 0..<20 {
            try await Task.sleep(for: .milliseconds(150))
            let now = count()
            if now == last { return now }
            last = now
        }
        return last
    }

    /// One request through the Swift API with a fresh token. A 401 is asked once more with
    /// another: a suite running beside this one may have just forgotten every token
    /// (``expireTokens()``), as a real client re-authenticates after a token's expiry.
    private func swift(_ method: String, _ path: String, body: Data?, headers: [String: String], expecting: Set<Int>) async throws -> Int {
        var status = 0
        for _ in 0..<2 {
            var request = HTTPClientRequest(url: url.absoluteString + "/v1/AUTH_test" + path)
            request.method = HTTPMethod(rawValue: method)
            request.headers.add(name: "X-Auth-Token", value: try await token())
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            let response = try await client.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            status = Int(response.status.code)
            if status != 401 { break }
        }
        guard expecting.contains(status) else { throw StoreError("\(method) \(path) answered \(status)") }
        return status
    }

    /// A failed step of the fixture.
    public struct StoreError: Error, CustomStringConvertible {
        /// What failed, in one line.
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
