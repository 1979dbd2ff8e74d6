// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import ImagoCore
import ImagoTestSupport
import NIOCore
import Synchronization
import Testing

@testable import ImagoServer

/// deploy/haproxy/imago.cfg through `scripts/cluster --front haproxy`, with the built
/// `imago-server`s on loopback: every variant of a source on one instance, a hot source spread
/// past its instance's bound, and a killed instance's requests retried on another.
@Suite(
    "Routing by source: HAProxy with bounded loads", .serialized,
    .enabled(if: DeploymentTests.tool("haproxy") != nil, "haproxy is missing: run scripts/bootstrap"))
struct RoutingTests {
    /// Image requests instance `i` answered (its source-cache hits and misses: health checks
    /// and scrapes do not count), from its own metrics.
    static func answered(_ cluster: DeploymentTests.Cluster, _ i: Int) async throws -> Int {
        let response = try await cluster.client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(try cluster.port(i))/metrics"), timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return text.split(separator: "\n").filter { $0.hasPrefix("imago_source_cache_hits_total") || $0.hasPrefix("imago_source_cache_misses_total") }
            .compactMap { line in
                line.split(separator: " ").last.flatMap { Double($0) }.map { Int($0) }
            }.reduce(0, +)
    }

    static func get(_ cluster: DeploymentTests.Cluster, _ path: String) async throws -> Int {
        let response = try await cluster.client.execute(HTTPClientRequest(url: cluster.front + path), timeout: .seconds(120))
        _ = try await response.body.collect(upTo: 64 << 20)
        return Int(response.status.code)
    }

    @Test("every width, format and density of a source reaches one instance; sources spread over all; a hot source overflows its bound")
    func bySource() async throws {
        let origin = try await TestHTTPServer.start()
        for n in 0..<12 { origin.register("p\(n).jpg", data: try ServerFixtures.jpeg(width: 800, height: 600), contentType: "image/jpeg") }
        try await DeploymentTests.withCluster(instances: 3, front: "haproxy") { cluster in
            for n in 0..<12 {
                let source = "http://127.0.0.1:\(origin.port)/img/p\(n).jpg"
                for variant in ["rs:fit:100:100", "rs:fit:200:200/dpr:2", "w:300", "w:120/f:webp"] {
                    #expect(try await Self.get(cluster, "/insecure/\(variant)/plain/\(source)") == 200)
                }
                #expect(try await Self.get(cluster, "/insecure/w:50/plain/\(source)@png") == 200)
                #expect(origin.count("/img/p\(n).jpg") == 1, "p\(n): its five variants were made where its source was")
            }
            // Small sources more, one request each, until every instance has answered three: which
            // instance a source hashes to depends on the origin's port, and the ring's shares are
            // not equal (24 sources left one instance a single request once). An instance with
            // any share reaches three long before 200 sources; one with none never does.
            var counts: [Int] = []
            var n = 12
            while n < 212, counts.isEmpty || !counts.allSatisfy({ $0 >= 3 }) {
                for m in n..<n + 6 {
                    origin.register("p\(m).jpg", data: try ServerFixtures.jpeg(width: 80, height: 60), contentType: "image/jpeg")
                    #expect(try await Self.get(cluster, "/insecure/w:40/plain/http://127.0.0.1:\(origin.port)/img/p\(m).jpg") == 200)
                }
                n += 6
                counts = []
                for i in 0..<3 { counts.append(try await Self.answered(cluster, i)) }
            }
            #expect(counts.reduce(0, +) == 60 + n - 12 && counts.allSatisfy { $0 >= 3 }, "every instance has a share: \(counts) after \(n) sources")

            // One source asked for by 30 clients at once, each a new width: past twice the
            // average load its instance takes no more, and the next one on the ring does.
            origin.register("hot.jpg", data: try ServerFixtures.jpeg(width: 3000, height: 2000), contentType: "image/jpeg")
            let hot = "http://127.0.0.1:\(origin.port)/img/hot.jpg"
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for w in 0..<30 { group.addTask { try await Self.get(cluster, "/insecure/w:\(400 + w)/plain/\(hot)") } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 30))
            #expect((2...3).contains(origin.count("/img/hot.jpg")), "spread over \(origin.count("/img/hot.jpg")) instances")
        }
        await origin.stop()
    }

    @Test("a killed instance's requests are retried on another, with no failure; it takes its share again when back")
    func killed() async throws {
        let origin = try await TestHTTPServer.start()
        origin.register("k.jpg", data: try ServerFixtures.jpeg(width: 800, height: 600), contentType: "image/jpeg")
        try await DeploymentTests.withCluster(instances: 3, front: "haproxy") { cluster in
            let source = "http://127.0.0.1:\(origin.port)/img/k.jpg"
            #expect(try await Self.get(cluster, "/insecure/w:100/plain/\(source)") == 200)
            var owner = -1
            for i in 0..<3 where try await Self.answered(cluster, i) > 0 { owner = i }
            #expect(owner >= 0)
            kill(try cluster.pid(owner), SIGKILL)
            for w in 0..<10 {
                #expect(try await Self.get(cluster, "/insecure/w:\(101 + w)/plain/\(source)") == 200, "request \(w) after the kill")
            }
            // Fetched again by the instance that took over; until the health check marks the killed
            // one down (1 s), a retry may be redispatched to the third one too.
            #expect((2...3).contains(origin.count("/img/k.jpg")), "fetched \(origin.count("/img/k.jpg")) times")
            try await cluster.restart(owner)
            try await Task.sleep(for: .seconds(3))
            #expect(try await Self.get(cluster, "/insecure/w:200/plain/\(source)") == 200)
            #expect(try await Self.answered(cluster, owner) == 1, "back on its instance (the source is in its cache)")
        }
        await origin.stop()
    }
}

/// `scripts/cluster --hosts`: three Imago hosts, a front, an object store and an origin, each a
/// network namespace with its own address, under load while a host is killed, a link cut, the
/// store slowed and a host drained.
@Suite(
    "Several hosts in network namespaces under faults",
    .enabled(if: getuid() == 0, "needs root for network namespaces"),
    .enabled(if: DeploymentTests.tool("ip") != nil && DeploymentTests.tool("haproxy") != nil, "iproute2 or haproxy is missing"),
    .enabled(if: ObjectStore.isInstalled, ObjectStore.missingReason), .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct MultiHostTests {
    @Test("no failed request through a kill, a cut link, a slow store and a drain; results shared between hosts")
    func faults() async throws {
        let python = try #require(DeploymentTests.tool("python3"))
        let script = DeploymentTests.root.appendingPathComponent("scripts/cluster-hosts").path
        let (status, out, err) = try await DeploymentTests.run(
            python, [script, "--seconds", "30", "--photos", "24", "--connections", "4", "--binary", TestFiles.builtProduct("imago-server").path])
        #expect(status == 0, "\(out)\(err.suffix(3000))")
        let summary = DeploymentTests.root.appendingPathComponent("bench-out/cluster-hosts/summary.json")
        let facts = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: summary)) as? [String: Any], "\(out)")
        #expect(facts["failures"] as? Int == 0, "\(out)")
        #expect((facts["requests"] as? Int ?? 0) > 100, "\(out)")
        #expect((facts["result_gets"] as? Int ?? 0) > 0, "a result made on one host was read by another: \(out)")
        #expect((facts["events"] as? [Any])?.count == 8, "\(out)")
        // Each photo from the origin once for the cluster (the store's claim makes the others wait
        // for the first download); a second time at most, when a host dies holding the claim.
        let photos = facts["photos_fetched"] as? Int ?? 0
        #expect(photos > 0 && (facts["origin_fetches"] as? Int ?? 0) <= photos + 2, "\(out)")
        #expect((facts["max_fetches_per_photo"] as? Int ?? 9) <= 2, "\(out)")
    }
}
