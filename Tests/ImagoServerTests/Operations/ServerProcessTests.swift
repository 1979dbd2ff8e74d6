// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

/// The `imago-server` executable as users run it: settings, signing, and the graceful stop.
@Suite("imago-server, the executable", .serialized)
struct ServerProcessTests {
    /// A running `imago-server` child, its stderr collected as it comes.
    final class Child: Sendable {
        final class Output: Sendable {
            let text = Mutex("")
            func withLock<T>(_ body: (inout String) -> T) -> T { text.withLock { body(&$0) } }
        }

        let process: Process
        let output = Output()

        /// Starts `imago-server` with `arguments`; `launcher` (say `prlimit --nofile=…`) runs it
        /// when given.
        init(arguments: [String], environment: [String: String], launcher: [String] = []) throws {
            process = Process()
            if let tool = launcher.first {
                process.executableURL = URL(fileURLWithPath: tool)
                process.arguments = Array(launcher.dropFirst()) + [TestFiles.builtProduct("imago-server").path] + arguments
            } else {
                process.executableURL = TestFiles.builtProduct("imago-server")
                process.arguments = arguments
            }
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let handle = err.fileHandleForReading
            let output = self.output
            // A thread of its own reads the child's output for as long as it runs, holding none
            // of the threads Swift's tasks share.
            Thread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    output.withLock { $0 += String(decoding: data, as: UTF8.self) }
                }
            }.start()
        }

        /// The port from the "listening on" line.
        func port() async throws -> Int {
            try await eventually { output.withLock { $0.contains("imago-server listening on") } || !process.isRunning }
            let text = output.withLock { $0 }
            guard let range = text.range(of: "imago-server listening on 127.0.0.1:") else { throw ChildError.noPort(text) }
            let digits = text[range.upperBound...].prefix { $0.isNumber }
            guard let port = Int(digits) else { throw ChildError.noPort(text) }
            return port
        }

        /// Waits for the exit off the cooperative pool; its status.
        func exitStatus() async -> Int32 {
            let process = self.process
            return await blocking {
                process.waitUntilExit()
                return process.terminationStatus
            }
        }

        enum ChildError: Error { case noPort(String) }
    }

    /// Runs the executable to completion (off the cooperative pool).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String, String) {
        try await Subprocess.run(TestFiles.builtProduct(executable), arguments, environment: environment)
    }

    @Test("SIGTERM: the request in flight finishes, then the process exits 0")
    func gracefulStop() async throws {
        let origin = try await TestHTTPServer.start()
        let cache = try TestFiles.temporaryDirectory("imago-server-process")
        defer { try? FileManager.default.removeItem(at: cache) }
        let png = try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.gradient(width: 100, height: 100)), as: .png)
        origin.register("a.png", data: png)
        let child = try Child(
            arguments: ["--bind", "127.0.0.1:0"],
            environment: [
                "IMAGO_ALLOW_LOOPBACK_SOURCES": "1", "IMAGO_CACHE_DIR": cache.path,
                "IMAGO_GRACEFUL_STOP_TIMEOUT": "60", "IMAGO_DOWNLOAD_TIMEOUT": "60", "IMAGO_REQUEST_TIMEOUT": "120"
            ])
        let port = try await child.port()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        // About 2 s of trickled body: the request is surely in flight when the signal comes.
        let path = "/_/w:50/plain/http://127.0.0.1:\(origin.port)/slow/a.png%3Fchunk=\(png.count / 20 + 1)%26delay=100"
        let request = Task { () -> (Int, Int) in
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(120))
            let body = try await response.body.collect(upTo: 1 << 24)
            let image = try ImageCoderRegistry.shared.decode(Data(body.readableBytesView))
            return (Int(response.status.code), image.pixelSize.width)
        }
        try await eventually { origin.count("/slow/a.png") == 1 }
        child.process.terminate()  // SIGTERM
        let (status, width) = try await request.value
        #expect(status == 200 && width == 50)
        #expect(await child.exitStatus() == 0)
        #expect(child.output.withLock { $0 }.contains("imago-server stopped"))
        try await client.shutdown()
        await origin.stop()
    }

    @Test("the malloc arena cap is set before main, while glibc still takes it (IMAGO_MALLOC_ARENAS, default 2)")
    func arenaCapBeforeMain() async throws {
        for (setting, expected) in [(nil, "2"), ("1", "1"), ("0", "no")] as [(String?, String)] {
            var environment = ["IMAGO_LOG_LEVEL": "debug"]
            environment["IMAGO_MALLOC_ARENAS"] = setting
            let child = try Child(arguments: ["--bind", "127.0.0.1:0"], environment: environment)
            _ = try await child.port()
            child.process.terminate()
            #expect(await child.exitStatus() == 0)
            #if os(Linux)
            #expect(
                child.output.withLock { $0 }.contains("malloc arenas capped before start: \(expected)"),
                "IMAGO_MALLOC_ARENAS=\(setting ?? "(unset)")")
            #endif
        }
    }

    @Test("past IMAGO_GRACEFUL_STOP_TIMEOUT the requests left are cut, and the process still exits 0")
    func gracefulStopTimeout() async throws {
        let origin = try await TestHTTPServer.start()
        let cache = try TestFiles.temporaryDirectory("imago-server-process")
        defer { try? FileManager.default.removeItem(at: cache) }
        let child = try Child(
            arguments: ["--bind", "127.0.0.1:0", "--download-timeout", "300", "--request-timeout", "300"],
            environment: [
                "IMAGO_ALLOW_LOOPBACK_SOURCES": "1", "IMAGO_CACHE_DIR": cache.path,
                "IMAGO_GRACEFUL_STOP_TIMEOUT": "1"
            ])
        let port = try await child.port()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let request = Task {
            try? await client.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/_/plain/http://127.0.0.1:\(origin.port)/nohead"),
                timeout: .seconds(120))
        }
        try await eventually { origin.count("/nohead") == 1 }
        let stopped = ContinuousClock.now
        child.process.terminate()
        #expect(await child.exitStatus() == 0)
        #expect(ContinuousClock.now - stopped < .seconds(60))
        _ = await request.value
        try await client.shutdown()
        await origin.stop()
    }

    @Test("sign: imgproxy's published vector, from imago-server and from imago")
    func sign() async throws {
        let args = [
            "sign", "--key", "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
            "--salt", "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5",
            "/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg"
        ]
        let expected = "/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg\n"
        let direct = try await Self.run("imago-server", args)
        #expect(direct.0 == 0 && direct.1 == expected, "\(direct)")
        let viaImago = try await Self.run("imago", args)
        #expect(viaImago.0 == 0 && viaImago.1 == expected, "\(viaImago)")
        let truncated = try await Self.run("imago-server", args + ["--size", "8"])
        #expect(truncated.1.split(separator: "/").first?.count == 11)
        #expect(try await Self.run("imago-server", ["sign", "--key", "zz", "--salt", "00", "/x"]).0 != 0)
    }

    @Test("--help lists every setting; a bad value names its variable and stops the start")
    func settings() async throws {
        let help = try await Self.run("imago-server", ["serve", "--help"])
        for name in [
            "IMAGO_BIND", "IMAGO_MAX_SRC_RESOLUTION", "IMAGO_MAX_SRC_FILE_SIZE", "IMAGO_MAX_REDIRECTS", "IMAGO_DOWNLOAD_TIMEOUT",
            "IMAGO_REQUEST_TIMEOUT", "IMAGO_MAX_RESULT_DIMENSION", "IMAGO_ALLOW_LOOPBACK_SOURCES", "IMAGO_KEY", "IMAGO_TTL",
            "--max-src-resolution", "--bind", "--set"
        ] {
            #expect(help.1.contains(name), "\(name)")
        }
        let bad = try await Self.run("imago-server", [], environment: ["IMAGO_QUALITY": "500"])
        #expect(bad.0 != 0 && bad.2.contains("IMAGO_QUALITY"))
        let badFlag = try await Self.run("imago-server", ["--max-redirects", "many"])
        #expect(badFlag.0 != 0 && badFlag.2.contains("IMAGO_MAX_REDIRECTS"))
        let badBind = try await Self.run("imago-server", ["--bind", "nowhere"])
        #expect(badBind.0 != 0 && badBind.2.contains("IMAGO_BIND"))
    }

    @Test("an imgproxy operator's first day: IMGPROXY_KEY signs, an unknown setting is a warning, a misspelt one stops the start")
    func imgproxySettings() async throws {
        let child = try Child(
            arguments: ["--bind", "127.0.0.1:0"],
            environment: ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f", "IMGPROXY_SO_REUSEPORT": "1"])
        let port = try await child.port()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let unsigned = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/_/w:10/plain/http://x.test/a.png"), timeout: .seconds(30))
        #expect(unsigned.status.code == 403)
        try await client.shutdown()
        child.process.terminate()
        #expect(await child.exitStatus() == 0)
        #expect(child.output.withLock { $0 }.contains("IMGPROXY_SO_REUSEPORT"))
        let typo = try await Self.run("imago-server", [], environment: ["IMAGO_MAX_SRC_RESOLUTON": "10"])
        #expect(typo.0 != 0 && typo.2.contains("IMAGO_MAX_SRC_RESOLUTION"))
        let security = try await Self.run("imago-server", [], environment: ["IMGPROXY_TRUSTED_SIGNATURES": "x"])
        #expect(security.0 != 0 && security.2.contains("IMGPROXY_TRUSTED_SIGNATURES"))
        let badPreset = try await Self.run("imago-server", [], environment: ["IMAGO_PRESETS": "default=w:-1"])
        #expect(badPreset.0 != 0 && badPreset.2.contains("IMAGO_PRESETS"))
        let noRoot = try await Self.run("imago-server", [], environment: ["IMAGO_LOCAL_ROOT": "/nonexistent/imago"])
        #expect(noRoot.0 != 0 && noRoot.2.contains("IMAGO_LOCAL_ROOT"))
    }

    @Test(
        "IMAGO_LOG_FORMAT=json: one object per line; a failure's line has its code, stage and source host, and the library's lines its request id; IMAGO_METRICS_BIND serves /metrics apart"
    )
    func logsAndMetrics() async throws {
        let origin = try await TestHTTPServer.start()
        let child = try Child(
            arguments: ["--bind", "127.0.0.1:0"],
            environment: [
                "IMAGO_LOG_FORMAT": "json", "IMAGO_METRICS_BIND": "127.0.0.1:0", "IMAGO_ALLOW_LOOPBACK_SOURCES": "1", "IMAGO_LOG_LEVEL": "debug"
            ])
        let port = try await child.port()
        try await eventually(.seconds(60)) { child.output.withLock { $0.contains("metrics listening on") } }
        let text = child.output.withLock { $0 }
        let range = try #require(text.range(of: "metrics listening on 127.0.0.1:"))
        let metricsPort = try #require(Int(text[range.upperBound...].prefix { $0.isNumber }))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        func get(_ url: String) async throws -> Int {
            let r = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            _ = try await r.body.collect(upTo: 1 << 20)
            return Int(r.status.code)
        }
        #expect(try await get("http://127.0.0.1:\(port)/_/w:10/plain/http://127.0.0.1:\(origin.port)/status/502/x") == 502)
        #expect(try await get("http://127.0.0.1:\(metricsPort)/metrics") == 200)
        #expect(try await get("http://127.0.0.1:\(port)/metrics") == 404)
        try await client.shutdown()
        child.process.terminate()
        #expect(await child.exitStatus() == 0)
        let lines = child.output.withLock { $0 }.split(separator: "\n").filter { !$0.isEmpty }
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not JSON: \(line)")
        }
        let failure = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
            .first { $0["status"] == "502" }
        #expect(failure?["error"] == "source_error" && failure?["stage"] == "source" && failure?["source_host"] == "127.0.0.1")
        #expect(failure?["level"] == "error" && failure?["request_id"] != nil && failure?["time"]?.hasSuffix("Z") == true)
        // The library's own lines for that request (the downloader's) carry the same id.
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
        let library = objects.filter { $0["logger"] != "imago.server" && $0["message"]?.hasPrefix("download") == true }
        #expect(!library.isEmpty, "\(lines)")
        #expect(library.allSatisfy { $0["request_id"] != nil && $0["request_id"] == failure?["request_id"] }, "\(library)")
        await origin.stop()
    }
}
