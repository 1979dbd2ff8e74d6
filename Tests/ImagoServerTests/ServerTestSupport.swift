// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoTestSupport
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

@testable import ImagoServer
@testable import ImagoServerCLI

/// What a test got back: status, headers (names lower-cased) and body.
struct Reply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    subscript(_ name: String) -> String? { headers[name.lowercased()] }

    /// The JSON error body's fields.
    var errorFields: [String: String] {
        (try? JSONSerialization.jsonObject(with: body) as? [String: String]) ?? [:]
    }

    /// The body decoded as an image.
    func image() throws -> Image { try ImageCoderRegistry.shared.decode(body) }
}

/// A running `imago-server` (in this process, on a loopback port) in front of a scripted
/// loopback origin, with a real HTTP client.
final class ServiceHarness: Sendable {
    let origin: TestHTTPServer
    let service: ImageService
    let base: String
    let client: HTTPClient
    let cacheDirectory: URL

    init(origin: TestHTTPServer, service: ImageService, base: String, cacheDirectory: URL) {
        self.origin = origin
        self.service = service
        self.base = base
        self.cacheDirectory = cacheDirectory
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.decompression = .disabled
        // Enough connections that concurrent test requests really are concurrent.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The origin's URL of a registered file (or any route).
    func source(_ route: String) -> String { "http://127.0.0.1:\(origin.port)\(route)" }

    /// `/_/{options}/plain/{source}[@ext]`, unsigned; `%`, `?`, `#` and `@` in the source are
    /// percent-encoded, as a plain source's must be.
    func plain(_ options: String, _ route: String, ext: String? = nil) -> String {
        "/_/" + (options.isEmpty ? "" : options + "/") + "plain/" + Self.escaped(source(route)) + (ext.map { "@" + $0 } ?? "")
    }

    static func escaped(_ source: String) -> String {
        source.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3F")
            .replacingOccurrences(of: "#", with: "%23").replacingOccurrences(of: "@", with: "%40")
    }

    /// GETs `path` from the service.
    func get(_ path: String, headers: [String: String] = [:], method: HTTPMethod = .GET) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        for (k, v) in headers { request.headers.add(name: k, value: v) }
        let response = try await client.execute(request, timeout: .seconds(180))
        var fields: [String: String] = [:]
        for h in response.headers { fields[h.name.lowercased()] = h.value }
        let body = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: fields, body: Data(body.readableBytesView))
    }

    static let silent = Logger(label: "imago.server.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Starts an origin and a service (loopback sources allowed, a cache of its own, patient
    /// timeouts unless `configure` says otherwise) with a heap trimmer every `trimInterval` beside
    /// it, as `imago-server` runs it, runs `body`, and stops both.
    static func with<T>(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        resolver: (any HostResolving)? = nil, connector: (any HTTPConnecting)? = nil, trimInterval: Duration = .seconds(10),
        _ body: (ServiceHarness) async throws -> T
    ) async throws -> T {
        let origin = try await TestHTTPServer.start()
        let directory = try TestFiles.temporaryDirectory("imago-server-tests")
        var configuration = ServerConfiguration()
        configuration.http.bind = "127.0.0.1:0"
        configuration.security.allowLoopbackSources = true
        configuration.cache.cacheDirectory = directory.path
        configuration.sources.downloadTimeout = .seconds(60)
        configuration.http.requestTimeout = .seconds(120)
        configure(&configuration)
        let service = try ImageService(
            configuration: configuration, logger: silent, resolver: resolver ?? SystemHostResolver(),
            connector: connector)
        let port = Mutex<Int?>(nil)
        let server = Task {
            // With a heap trimmer beside it, as the imago-server executable runs it.
            let trimmer = HeapTrimmer(service: service, interval: trimInterval)
            try await ImageServer(service: service, logger: silent).run(handleSignals: false, services: [trimmer]) { _, bound in
                port.withLock { $0 = bound }
            }
        }
        // Polling time only: a stall of the whole test process must not fail the start.
        try await poll(.seconds(120), every: .milliseconds(10)) { port.withLock { $0 } != nil }
        let bound = try #require(port.withLock { $0 }, "the service did not start")
        let harness = ServiceHarness(origin: origin, service: service, base: "http://127.0.0.1:\(bound)", cacheDirectory: directory)
        do {
            let result = try await body(harness)
            await harness.stop(server)
            return result
        } catch {
            await harness.stop(server)
            throw error
        }
    }

    private func stop(_ server: Task<Void, any Error>) async {
        try? await client.shutdown()
        server.cancel()
        _ = await server.result
        await origin.stop()
        try? FileManager.default.removeItem(at: cacheDirectory)
    }
}

/// Synthetic sources, encoded by the library.
enum ServerFixtures {
    static func jpeg(width: Int, height: Int, orientation: ImageOrientation = .up, exif: Data? = nil, quality: Double = 0.9) throws -> Data {
        var image = Image(buffer: try Fixtures.gradient(width: width, height: height), orientation: orientation)
        image.metadata.exif = exif
        let options = EncodeOptions(quality: quality, orientation: orientation == .up ? .bake : .writeEXIF)
        return try ImageCoderRegistry.shared.encode(image, as: .jpeg, options: options)
    }

    static func png(width: Int, height: Int, alpha: Bool = false) throws -> Data {
        try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.gradient(width: width, height: height, alpha: alpha)), as: .png)
    }

    /// An animation of `frames` frames, each a flat colour, 100 ms apart.
    static func animation(_ format: ImageFormat = .gif, frames: Int = 3, width: Int = 40, height: Int = 30) throws -> Data {
        let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255)]
        let list = try (0..<frames).map { i -> ImageFrame in
            let c = colours[i % colours.count]
            let bytes = [UInt8]((0..<(width * height)).flatMap { _ in [c.0, c.1, c.2, 255] })
            return ImageFrame(buffer: try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes), duration: 0.1)
        }
        return try ImageCoderRegistry.shared.encode(try Image(frames: list), as: format)
    }

    /// A picture of `inner` size in the middle of a flat white border `border` pixels wide.
    static func bordered(inner: Int, border: Int) throws -> Data {
        let side = inner + 2 * border
        var bytes = [UInt8](repeating: 255, count: side * side * 4)
        for y in border..<(border + inner) {
            for x in border..<(border + inner) {
                let o = (y * side + x) * 4
                bytes[o] = UInt8(x * 3 % 200)
                bytes[o + 1] = 40
                bytes[o + 2] = UInt8(y * 5 % 200)
            }
        }
        return try ImageCoderRegistry.shared.encode(Image(buffer: try PixelBuffer(width: side, height: side, format: .rgba8, bytes: bytes)), as: .png)
    }
}

/// Waits for `condition`, failing after `limit` of polling (``poll(_:every:sourceLocation:_:)``).
func eventually(_ limit: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async throws {
    try await poll(limit, every: .milliseconds(10), sourceLocation: sourceLocation, condition)
}
