// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Testing

@testable import ImagoLoading

@Suite("Cache freshness from the origin's headers")
struct CacheFreshnessTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func seconds(_ lifetime: CacheFreshness.Lifetime) -> Double? {
        guard case .fresh(let until?) = lifetime else { return nil }
        return until.timeIntervalSince(now)
    }

    @Test("Cache-Control: no-store, no-cache, s-maxage over max-age, Age subtracted; Expires against Date")
    func directives() {
        let policy = CacheFreshness(default: .seconds(600))
        #expect(policy.lifetime(headers: ["cache-control": "no-store"], now: now) == .noStore)
        #expect(policy.lifetime(headers: ["cache-control": "public, No-Store"], now: now) == .noStore)
        #expect(seconds(policy.lifetime(headers: ["cache-control": "no-cache, max-age=99"], now: now)) == 0)
        #expect(seconds(policy.lifetime(headers: ["cache-control": "max-age=60"], now: now)) == 60)
        #expect(seconds(policy.lifetime(headers: ["cache-control": "max-age=60, s-maxage=30"], now: now)) == 30)
        #expect(seconds(policy.lifetime(headers: ["cache-control": "max-age=\"45\""], now: now)) == 45)
        #expect(seconds(policy.lifetime(headers: ["cache-control": "max-age=60", "age": "50"], now: now)) == 10)
        #expect(seconds(policy.lifetime(headers: ["cache-control": "max-age=60", "age": "500"], now: now)) == 0)
        // Expires counts from the origin's Date; one that does not parse (0) is already expired.
        let expires = ["expires": "Fri, 15 Jan 2027 08:01:40 GMT", "date": "Fri, 15 Jan 2027 08:00:00 GMT"]
        #expect(seconds(policy.lifetime(headers: expires, now: now)) == 100)
        #expect(seconds(policy.lifetime(headers: ["expires": "0"], now: now)) == 0)
        // max-age wins over Expires; nothing at all gets the default.
        #expect(seconds(policy.lifetime(headers: expires.merging(["cache-control": "max-age=5"]) { $1 }, now: now)) == 5)
        #expect(seconds(policy.lifetime(headers: [:], now: now)) == 600)
        #expect(seconds(policy.lifetime(headers: ["cache-control": "public"], now: now)) == 600)
        #expect(CacheFreshness.origin.lifetime(headers: [:], now: now) == .fresh(until: nil))
    }

    @Test("the minimum and maximum hold lifetimes in, but never make no-cache fresh")
    func bounds() {
        let policy = CacheFreshness(default: .seconds(600), minimum: .seconds(30), maximum: .seconds(3600))
        #expect(seconds(policy.lifetime(headers: ["cache-control": "max-age=5"], now: now)) == 30)
        #expect(seconds(policy.lifetime(headers: ["cache-control": "max-age=86400"], now: now)) == 3600)
        #expect(seconds(policy.lifetime(headers: ["cache-control": "no-cache"], now: now)) == 0)
        // A maximum holds even without a default; a shared cache does not keep private answers.
        #expect(seconds(CacheFreshness(default: nil, maximum: .seconds(10)).lifetime(headers: [:], now: now)) == 10)
        #expect(CacheFreshness(default: nil, shared: true).lifetime(headers: ["cache-control": "private, max-age=9"], now: now) == .noStore)
        #expect(seconds(CacheFreshness(default: nil).lifetime(headers: ["cache-control": "private, max-age=9"], now: now)) == 9)
    }

    @Test("HTTP dates: RFC 9110's form; others are not read")
    func dates() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:59 GMT") == Date(timeIntervalSince1970: 1_835_481_599))
        for bad in [
            "0", "", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 PST"
        ] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("a route round-trips through a cache entry's metadata; a guard refuses what its policy now refuses")
    func routes() throws {
        let route = [
            DataLoadResponse.Hop(url: URL(string: "http://a.test/x")!, addressKind: .global),
            DataLoadResponse.Hop(url: URL(string: "http://b.test/y?z=1")!, addressKind: .loopback)
        ]
        #expect(DataLoadResponse.Hop.decode(DataLoadResponse.Hop.encode(route)) == route)
        #expect(DataLoadResponse.Hop.decode("weird http://x") == nil)
        let open = SourceGuard(policy: AddressPolicy(allowsLoopback: true))
        #expect(open.permits(route: route))
        #expect(!SourceGuard().permits(route: route))
        #expect(!SourceGuard(policy: AddressPolicy(allowsLoopback: true), permitsURL: { $0.host == "a.test" }).permits(route: route))
        // A route recorded without a guard is not known to be safe.
        #expect(!open.permits(route: [DataLoadResponse.Hop(url: URL(string: "http://a.test/")!, addressKind: nil)]))
        let loader = HTTPDataLoader(sourceGuard: open)
        #expect(loader.permitsCached(URL(string: "http://a.test/x")!, route: route) == true)
        #expect(loader.permitsCached(URL(string: "http://a.test/x")!, route: nil) == nil)
        #expect(HTTPDataLoader().permitsCached(URL(string: "http://a.test/x")!, route: nil) == true)
    }
}
