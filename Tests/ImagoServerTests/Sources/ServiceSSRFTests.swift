// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoLoading
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// Server-side request forgery, through the service: names resolving to refused ranges, every
/// spelling of a loopback address, redirects into refused ranges. The resolver is a table and
/// the connector counts attempts: nothing here sends a packet beyond 127.0.0.1.
@Suite("Service SSRF: refused before any connection", .serialized)
struct ServiceSSRFTests {
    static let table: [String: [String]] = [
        "intranet.test": ["10.1.2.3"], "office.test": ["192.168.1.10"], "corp.test": ["172.16.5.5"],
        "metadata.test": ["169.254.169.254"], "cgnat.test": ["100.64.1.1"], "ula.test": ["fd12::1"],
        "linklocal6.test": ["fe80::1"], "mapped.test": ["::ffff:10.0.0.1"], "nat64.test": ["64:ff9b::a9fe:a9fe"],
        "sixtofour.test": ["2002:a9fe:a9fe::1"], "zero.test": ["0.0.0.0"], "local.test": ["127.0.0.1"],
        "multicast.test": ["239.1.1.1"], "broadcast.test": ["255.255.255.255"]
    ]

    @Test("every refused range and spelling: 404 as imgproxy answers, zero connection attempts, no address in the message")
    func refusedWithoutConnecting() async throws {
        let resolver = TableResolver(Self.table)
        let connector = CountingConnector()
        try await ServiceHarness.with({ $0.security.allowLoopbackSources = false }, resolver: resolver, connector: connector) { h in
            let sources =
                Self.table.keys.sorted().map { "http://\($0)/a.png" } + [
                    "http://2130706433/a.png", "http://0x7f000001/a.png", "http://0177.0.0.1/a.png", "http://127.1/a.png",
                    "http://[::ffff:127.0.0.1]/a.png", "http://0.0.0.0/a.png", "http://[::1]/a.png", "http://169.254.169.254/latest/meta-data",
                    "http://[::ffff:a9fe:a9fe]/", "https://10.0.0.1/a.png", "http://127.0.0.1:\(h.origin.port)/img/a.png"
                ]
            for source in sources {
                let r = try await h.get("/_/plain/" + ServiceHarness.escaped(source))
                #expect(r.status == 404, "\(source): \(r.status) \(r.errorFields)")
                #expect(r.errorFields["error"] == "source_not_allowed" && r.errorFields["message"] == "the source is not allowed")
                // Base64 sources take the same road.
                let b64 = Data(source.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                #expect(try await h.get("/_/w:10/" + b64).status == 404, "\(source) as base64")
            }
            #expect(connector.attempts.withLock { $0 }.isEmpty, "\(connector.attempts.withLock { $0 })")
            #expect(h.origin.totalCount == 0)
        }
    }

    @Test("each class can be allowed on its own; the connection goes to the address checked")
    func allowedClasses() async throws {
        let resolver = TableResolver(["origin.test": ["127.0.0.1"], "intranet.test": ["10.1.2.3"]])
        let connector = CountingConnector()
        try await ServiceHarness.with({ $0.security.allowLoopbackSources = true }, resolver: resolver, connector: connector) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 20, height: 20))
            let ok = try await h.get("/_/plain/http://origin.test:\(h.origin.port)/img/a.png")
            #expect(ok.status == 200)
            #expect(connector.attempts.withLock { $0 } == ["origin.test@127.0.0.1"])
            // Loopback allowed does not allow private.
            #expect(try await h.get("/_/plain/http://intranet.test/a.png").status == 404)
            #expect(connector.attempts.withLock { $0 }.count == 1)
        }
    }

    @Test("a redirect into a refused range is refused at the hop, before connecting")
    func redirectHop() async throws {
        let resolver = TableResolver(["origin.test": ["127.0.0.1"], "metadata.test": ["169.254.169.254"]])
        let connector = CountingConnector()
        try await ServiceHarness.with({ $0.security.allowLoopbackSources = true }, resolver: resolver, connector: connector) { h in
            for target in ["http://metadata.test/latest/meta-data", "http://169.254.169.254/", "http://10.0.0.1/x.png"] {
                let r = try await h.get("/_/plain/" + ServiceHarness.escaped("http://origin.test:\(h.origin.port)/away?to=\(target)"))
                #expect(r.status == 404, "\(target): \(r.status)")
            }
            // Only the three first hops, to the loopback origin, connected.
            #expect(connector.attempts.withLock { $0 }.allSatisfy { $0.hasSuffix("@127.0.0.1") })
            #expect(connector.attempts.withLock { $0 }.count == 3)
        }
    }
}
