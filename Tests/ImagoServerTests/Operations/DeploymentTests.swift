// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

/// What ships in deploy/ and scripts/: the systemd units, the nginx front of several instances
/// (through scripts/cluster), and the playground page in a real browser.
@Suite("Deployment: systemd units, nginx scale-out, the playground in Chromium", .serialized)
struct DeploymentTests {
    static let root = TestFiles.projectRoot

    static func tool(_ name: String) -> String? {
        for dir in ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin"] {
            let path = dir + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs a program to its end, off the cooperative pool: status, stdout, stderr.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        directory: URL? = nil
    ) async throws -> (Int32, String, String) {
        try await Subprocess.run(URL(fileURLWithPath: executable), arguments, environment: environment, directory: directory)
    }

    // MARK: systemd

    @Test(
        "the systemd units pass systemd-analyze verify and carry the hardening",
        .enabled(if: tool("systemd-analyze") != nil, "systemd-analyze is missing: run scripts/bootstrap"))
    func systemdUnits() async throws {
        let analyze = try #require(Self.tool("systemd-analyze"))
        let directory = try TestFiles.temporaryDirectory("imago-systemd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = TestFiles.builtProduct("imago-server").path
        for (file, instance) in [("imago-server.service", "imago-server.service"), ("imago-server@.service", "imago-server@8081.service")] {
            let text = try String(contentsOf: Self.root.appendingPathComponent("deploy/systemd/\(file)"), encoding: .utf8)
            for line in [
                "DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "MemoryMax=", "CacheDirectory=imago-server",
                "ExecStart=/usr/local/bin/imago-server", "KillSignal=SIGTERM", "CapabilityBoundingSet="
            ] {
                #expect(text.contains("\n" + line), "\(file) lacks \(line)")
            }
            // The unit as installed, but pointing at the binary just built (verify checks it exists).
            try text.replacingOccurrences(of: "/usr/local/bin/imago-server", with: binary)
                .write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
            let (status, out, err) = try await Self.run(analyze, ["verify", "--man=no", instance], directory: directory)
            #expect(status == 0, "\(file): \(out)\(err)")
            let warnings = (out + err).split(separator: "\n").filter { $0.contains(file) || $0.contains(instance) }
            #expect(warnings.isEmpty, "\(file): \(warnings.joined(separator: "\n"))")
        }
    }

    // MARK: nginx in front of several instances

    @Test(
        "scale-out: steady load through nginx while one instance is SIGKILLed and another drained with SIGTERM, each restarted; no request fails and the origin sees each source once per instance",
        .enabled(if: tool("nginx") != nil && tool("python3") != nil, "nginx or python3 is missing: run scripts/bootstrap"))
    func scaleOut() async throws {
        let origin = try await TestHTTPServer.start()
        let sources = 4, instances = 3
        for s in 0..<sources {
            origin.register("s\(s).png", data: try ServerFixtures.png(width: 160 + s, height: 120))
        }
        try await Self.withCluster(
            instances: instances,
            env: ["IMAGO_GRACEFUL_STOP_TIMEOUT=20", "IMAGO_REQUEST_TIMEOUT=60", "IMAGO_DOWNLOAD_TIMEOUT=30"]
        ) { (c: Cluster) async throws in
            let client = c.client, front = c.front
            let load = LoadState()
            let port = origin.port
            let request: @Sendable (Int) async -> Void = { n in
                // A new URL each time (nginx's result cache would answer a repeat), spread over the sources.
                let path = "/_/rs:fit:\(40 + n % 50):0/cb:\(n)/plain/http://127.0.0.1:\(port)/img/s\(n % sources).png"
                do {
                    let response = try await client.execute(HTTPClientRequest(url: front + path), timeout: .seconds(60))
                    let body = try await response.body.collect(upTo: 1 << 24)
                    if response.status.code != 200 { load.fail("\(response.status.code) \(path)") }
                    let image = try ImageCoderRegistry.shared.decode(Data(body.readableBytesView))
                    if image.pixelSize.width != 40 + n % 50 { load.fail("width \(image.pixelSize.width) \(path)") }
                } catch {
                    load.fail("\(error) \(path)")
                }
            }
            // Warm-up: enough URLs that every instance has cached every source.
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        while true {
                            let n = load.next()
                            if n > 120 { break }
                            await request(n)
                        }
                    }
                }
            }
            #expect(load.failureList.isEmpty, "\(load.failureList)")
            try await Task.sleep(for: .seconds(1))  // the instances' source-cache writes land
            for s in 0..<sources {
                #expect(origin.count("/img/s\(s).png") == instances, "source \(s): \(origin.count("/img/s\(s).png")) downloads")
            }

            // Steady load while instances die and come back.
            let steady = Task {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            while !load.stopped { await request(load.next()) }
                        }
                    }
                }
            }
            let before = load.count
            try await Task.sleep(for: .seconds(1.5))
            let killed = try c.pid(0)
            kill(killed, SIGKILL)
            try await Task.sleep(for: .seconds(1.5))
            try await c.restart(0)
            try await Task.sleep(for: .seconds(1.5))
            let drained = try c.pid(1)
            kill(drained, SIGTERM)
            try await eventually(.seconds(60)) { kill(drained, 0) != 0 }
            try await c.restart(1)
            try await Task.sleep(for: .seconds(1.5))
            load.stop()
            await steady.value

            let served = load.count - before
            #expect(served > 40, "only \(served) requests went through during the restarts")
            #expect(load.failureList.isEmpty, "\(load.failureList.prefix(10))")
            for s in 0..<sources {
                #expect(
                    origin.count("/img/s\(s).png") == instances,
                    "source \(s): \(origin.count("/img/s\(s).png")) downloads; the instances' caches survive kills and restarts")
            }
            let log = try String(contentsOf: c.directory.appendingPathComponent("instance-1/log"), encoding: .utf8)
            #expect(log.contains("imago-server stopped"), "the drained instance stopped gracefully")
        }
        await origin.stop()
    }

    @Test(
        "an origin's 502s through nginx and three instances: answered once, never retried on another instance, no instance marked down; /metrics is not public",
        .enabled(if: tool("nginx") != nil && tool("python3") != nil, "nginx or python3 is missing: run scripts/bootstrap"))
    func failingOrigin() async throws {
        let origin = try await TestHTTPServer.start()
        origin.register("ok.png", data: try ServerFixtures.png(width: 64, height: 48))
        try await Self.withCluster(instances: 3) { (c: Cluster) async throws in
            let client = c.client, front = c.front
            func get(_ path: String) async throws -> Int {
                let response = try await client.execute(HTTPClientRequest(url: front + path), timeout: .seconds(60))
                _ = try await response.body.collect(upTo: 1 << 24)
                return Int(response.status.code)
            }
            // Twelve dead source URLs: each answered 502 once, from one instance.
            for n in 0..<12 {
                #expect(try await get("/_/w:10/plain/http://127.0.0.1:\(origin.port)/status/502/\(n)") == 502)
            }
            for n in 0..<12 {
                #expect(origin.count("/status/502/\(n)") == 1, "URL \(n) fetched \(origin.count("/status/502/\(n)")) times")
            }
            // Every instance still takes its share: good URLs all over the ring are answered.
            for n in 0..<30 { #expect(try await get("/_/w:\(20 + n)/plain/http://127.0.0.1:\(origin.port)/img/ok.png") == 200) }
            let errors = (try? String(contentsOf: c.directory.appendingPathComponent("nginx/error.log"), encoding: .utf8)) ?? ""
            #expect(!errors.contains("temporarily disabled") && !errors.contains("no live upstreams"), "\(errors)")
            #expect(try await get("/metrics") == 404)
            #expect(try await get("/purge?url=x") == 404)
        }
        await origin.stop()
    }

    @Test(
        "Accept in classes: nginx keeps one copy of a result per class of Accept (the formats named), not per browser's header",
        .enabled(if: tool("nginx") != nil && tool("python3") != nil, "nginx or python3 is missing: run scripts/bootstrap"))
    func acceptClasses() async throws {
        let origin = try await TestHTTPServer.start()
        origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 120, height: 80), contentType: "image/jpeg")
        // AVIF made while the client waits: the classes, not AVIF later, are under test here.
        try await Self.withCluster(instances: 2, env: ["IMAGO_AUTO_WEBP=1", "IMAGO_AUTO_AVIF=1", "IMAGO_AVIF_LATER=0"]) {
            (c: Cluster) async throws in
            let path = "/_/w:60/plain/http://127.0.0.1:\(origin.port)/img/photo.jpg"
            func get(_ accept: String) async throws -> (type: String?, cache: String?, vary: String?) {
                var request = HTTPClientRequest(url: c.front + path)
                request.headers.add(name: "Accept", value: accept)
                let response = try await c.client.execute(request, timeout: .seconds(60))
                _ = try await response.body.collect(upTo: 1 << 24)
                return (
                    response.headers.first(name: "Content-Type"), response.headers.first(name: "X-Cache-Status"),
                    response.headers.first(name: "Vary")
                )
            }
            let avif = ImageCoderRegistry.shared.canEncode(.avif) ? "image/avif" : "image/webp"
            // Chrome's and Firefox's headers differ but name the same formats: one class, one copy.
            let chrome = try await get("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8")
            #expect(chrome.type == avif && chrome.cache == "MISS" && chrome.vary == "Accept", "\(chrome)")
            let firefox = try await get("image/avif,image/webp,*/*")
            #expect(firefox.type == avif && firefox.cache == "HIT", "\(firefox)")
            // Another class is another copy; a client naming no image format shares the plain one.
            let webp = try await get("image/webp,*/*")
            #expect(webp.type == "image/webp" && webp.cache == "MISS", "\(webp)")
            let plain = try await get("*/*")
            #expect(plain.type == "image/jpeg" && plain.cache == "MISS", "\(plain)")
            let png = try await get("image/png,image/*;q=0.8,*/*;q=0.5")
            #expect(png.type == "image/jpeg" && png.cache == "HIT", "\(png)")
            // A format refused with q=0 is not named.
            let refused = try await get("image/avif;q=0,image/webp,*/*")
            #expect(refused.type == "image/webp" && refused.cache == "HIT", "\(refused)")
            #expect(origin.count("/img/photo.jpg") <= 2, "each instance fetched the source at most once")
        }
        await origin.stop()
    }

    /// A running `scripts/cluster`: nginx at ``front`` in front of the built `imago-server`s.
    struct Cluster {
        let directory: URL
        let front: String
        let client: HTTPClient
        let python: String
        let script: String

        /// Instance `i`'s process id, as the cluster's state file has it now.
        func pid(_ i: Int) throws -> Int32 {
            let state = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("cluster.json"))) as? [String: Any]
            let list = state?["instances"] as? [[String: Any]]
            return Int32(try #require(list?[i]["pid"] as? Int))
        }

        /// Instance `i`'s port, as the cluster's state file has it.
        func port(_ i: Int) throws -> Int {
            let state = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("cluster.json"))) as? [String: Any]
            let list = state?["instances"] as? [[String: Any]]
            return try #require(list?[i]["port"] as? Int)
        }

        /// Starts instance `i` again.
        func restart(_ i: Int) async throws {
            let (status, out, err) = try await DeploymentTests.run(python, [script, "--dir", directory.path, "--restart", "\(i)"])
            #expect(status == 0, "\(out)\(err)")
        }
    }

    /// Starts `scripts/cluster` with `instances` instances of the built `imago-server` (loopback
    /// sources allowed, `env` besides), runs `body` on it, records what it throws, and stops it.
    static func withCluster(
        instances: Int, env: [String] = [], front: String = "nginx", _ body: (Cluster) async throws -> Void
    ) async throws {
        let directory = try TestFiles.temporaryDirectory("imago-cluster")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = root.appendingPathComponent("scripts/cluster").path
        let python = try #require(tool("python3"))
        var arguments = [
            script, "--detach", "--dir", directory.path, "--instances", "\(instances)", "--port", "0",
            "--binary", TestFiles.builtProduct("imago-server").path, "--env", "IMAGO_ALLOW_LOOPBACK_SOURCES=1", "--front", front
        ]
        for setting in env { arguments += ["--env", setting] }
        let (started, out, err) = try await run(python, arguments)
        #expect(started == 0, "\(out)\(err)")
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let state = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("cluster.json"))) as? [String: Any]
            let front = try #require(state?["front"] as? String)
            try await body(Cluster(directory: directory, front: front, client: client, python: python, script: script))
        } catch {
            Issue.record(error)
        }
        try? await client.shutdown()
        _ = try? await run(python, [script, "--dir", directory.path, "--stop"])
    }

    @Test(
        "the README's service quick start, as printed but for its build lines: a signed URL of an SVG answered as a PNG",
        .enabled(if: tool("curl") != nil && tool("bash") != nil, "curl or bash is missing"))
    func serviceQuickStart() async throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- service-quickstart -->\n```sh\n"))
        let block = String(readme[marker.upperBound...]).components(separatedBy: "\n```")[0]
        let products = TestFiles.builtProduct("imago-server").deletingLastPathComponent().path
        let script = block.split(separator: "\n").filter { !$0.hasPrefix("swift build") }
            .map { $0.replacingOccurrences(of: ".build/release", with: products) }.joined(separator: "\n")
        #expect(script.contains("imago sign") && script.contains("curl"))
        let directory = try TestFiles.temporaryDirectory("imago-quickstart")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("docs"), withDestinationURL: Self.root.appendingPathComponent("docs"))
        try Data(("set -e\ncd " + directory.path + "\n" + script + "\n").utf8).write(to: directory.appendingPathComponent("quickstart.sh"))
        let port = Int.random(in: 20_000..<30_000)
        let (status, out, err) = try await Self.run(
            try #require(Self.tool("bash")), [directory.appendingPathComponent("quickstart.sh").path], environment: ["PORT": "\(port)"])
        #expect(status == 0, "\(out)\(err)")
        let chart = try ImageCoderRegistry.shared.decode(Data(contentsOf: directory.appendingPathComponent("chart.png")))
        #expect(chart.pixelSize.width == 600)
    }

    /// The load's shared counters.
    final class LoadState: Sendable {
        private let counter = Atomic<Int>(0)
        private let halted = Atomic<Bool>(false)
        private let failures = Mutex<[String]>([])
        func next() -> Int { counter.add(1, ordering: .relaxed).newValue }
        var count: Int { counter.load(ordering: .relaxed) }
        func stop() { halted.store(true, ordering: .relaxed) }
        var stopped: Bool { halted.load(ordering: .relaxed) }
        func fail(_ what: String) { failures.withLock { $0.append(what) } }
        var failureList: [String] { failures.withLock { $0 } }
    }

    // MARK: The playground page

    @Test(
        "the playground in headless Chromium: options from the query, the preview loads at the asked size, the original beside it",
        .enabled(if: tool("chromium") != nil, "chromium is missing: run scripts/bootstrap"))
    func playground() async throws {
        let chromium = try #require(Self.tool("chromium"))
        try await ServiceHarness.with({ $0.http.playground = true }) { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 640, height: 480), contentType: "image/jpeg")
            let page = try await h.get("/")
            #expect(page.status == 200 && page["content-type"] == "text/html; charset=utf-8")
            #expect(page["content-security-policy"]?.contains("default-src 'none'") == true)
            let html = String(decoding: page.body, as: UTF8.self)
            for external in ["src=\"http", "href=\"http", "<link", "@import", "url(http", "src=\"//"] {
                #expect(!html.contains(external), "no external assets: \(external)")
            }

            let source = h.source("/img/photo.jpg")
            var query = URLComponents()
            query.queryItems = [
                URLQueryItem(name: "src", value: source), URLQueryItem(name: "w", value: "120"),
                URLQueryItem(name: "h", value: "120"), URLQueryItem(name: "rt", value: "fill"),
                URLQueryItem(name: "g", value: "sm"), URLQueryItem(name: "f", value: "png")
            ]
            let profile = try TestFiles.temporaryDirectory("imago-chromium")
            defer { try? FileManager.default.removeItem(at: profile) }
            let (status, dom, err) = try await Self.run(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)",
                    "--virtual-time-budget=20000", "--dump-dom", h.base + "/" + (query.string ?? "")
                ])
            #expect(status == 0, "\(err.suffix(2000))")
            let result = try #require(Self.element("result", in: dom), "no result image in\n\(dom.suffix(3000))")
            #expect(result["data-state"] == "loaded", "\(result)\n\(dom.suffix(2000))")
            #expect(result["data-width"] == "120" && result["data-height"] == "120", "\(result)")
            #expect(Int(result["data-bytes"] ?? "") ?? 0 > 100)
            let original = try #require(Self.element("original", in: dom))
            #expect(original["data-width"] == "640" && original["data-height"] == "480", "\(original)")
            #expect(dom.contains("rs:fill:120:120/g:sm/plain/"), "the generated path is shown")
            #expect(dom.contains("120×120") && dom.contains("image/png"), "sizes and type are shown")
        }
        // A signing server: the page shows the path with a placeholder and loads nothing.
        try await ServiceHarness.with({
            $0.http.playground = true
            $0.urls.keys = "736563726574"
            $0.urls.salts = "68656C6C6F"
        }) { h in
            let html = String(decoding: try await h.get("/").body, as: UTF8.self)
            #expect(html.contains("\"signed\": true"))
            let (_, dom, _) = try await Self.run(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--virtual-time-budget=5000", "--dump-dom",
                    h.base + "/?src=" + (h.source("/img/x.jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "&w=50"
                ])
            #expect(dom.contains("/SIGNATURE/rs:fit:50:0/plain/"), "\(dom.suffix(2000))")
            #expect(Self.element("result", in: dom)?["data-state"] == nil, "nothing is loaded unsigned")
        }
        // Off by default.
        try await ServiceHarness.with { h in
            let root = try await h.get("/")
            #expect(root.status == 404)
        }
    }

    /// The attributes of the element with `id` in a dumped DOM.
    static func element(_ id: String, in dom: String) -> [String: String]? {
        guard let start = dom.range(of: "id=\"\(id)\"") else { return nil }
        let open = dom[..<start.lowerBound].lastIndex(of: "<") ?? start.lowerBound
        guard let close = dom[start.upperBound...].firstIndex(of: ">") else { return nil }
        let tag = dom[open..<close]
        var attributes: [String: String] = [:]
        var rest = tag[...]
        while let eq = rest.range(of: "=\"") {
            let name = rest[..<eq.lowerBound].split(separator: " ").last.map(String.init) ?? ""
            let after = rest[eq.upperBound...]
            guard let end = after.firstIndex(of: "\"") else { break }
            attributes[name] = String(after[..<end])
            rest = after[after.index(after: end)...]
        }
        return attributes
    }
}
