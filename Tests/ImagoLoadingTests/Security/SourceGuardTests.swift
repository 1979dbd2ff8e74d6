// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoLoading

@Suite("Addresses: every spelling, every class")
struct IPAddressTests {
    @Test("IPv4 is read as inet_aton reads it: decimal, hex, octal and short forms")
    func ipv4Spellings() {
        for spelling in ["127.0.0.1", "2130706433", "0x7f000001", "0x7F.0.0.1", "0177.0.0.1", "0177.0.0.01", "127.1", "127.0.1"] {
            #expect(IPAddress(literal: spelling)?.description == "127.0.0.1", "\(spelling)")
        }
        #expect(IPAddress(literal: "0")?.description == "0.0.0.0" && IPAddress(literal: "0.0.0.0")?.kind == .unspecified)
        #expect(IPAddress(literal: "10.1")?.description == "10.0.0.1" && IPAddress(literal: "169.254.169.254")?.kind == .linkLocal)
        for notLiteral in ["example.com", "256.0.0.1", "1.2.3.4.5", "4294967296", "0x100000000", "08.1.1.1", "1..2", "", "1.2.3.256"] {
            #expect(IPAddress(literal: notLiteral) == nil, "\(notLiteral)")
        }
    }

    @Test("IPv6: compression, brackets, an IPv4 tail; zones and junk are not literals")
    func ipv6Spellings() {
        #expect(IPAddress(literal: "::1")?.kind == .loopback && IPAddress(literal: "[::1]")?.kind == .loopback)
        #expect(IPAddress(literal: "::")?.kind == .unspecified)
        #expect(IPAddress(literal: "0:0:0:0:0:0:0:1")?.kind == .loopback)
        #expect(IPAddress(literal: "2606:4700::1111")?.kind == .global)
        #expect(IPAddress(literal: "[::ffff:127.0.0.1]")?.kind == .loopback)
        #expect(IPAddress(literal: "::ffff:7f00:1")?.kind == .loopback)
        #expect(IPAddress(literal: "::ffff:8.8.8.8")?.kind == .global)
        for junk in ["fe80::1%eth0", ":::1", "1::2::3", "12345::1", "1:2:3:4:5:6:7:8:9", "::ffff:1.2.3", "g::1"] {
            #expect(IPAddress(literal: junk) == nil, "\(junk)")
        }
    }

    @Test("classes: loopback, private (RFC 1918, CGNAT, ULA), link-local, and the always-refused ones")
    func kinds() {
        let expected: [(String, IPAddress.Kind)] = [
            ("8.8.8.8", .global), ("1.1.1.1", .global), ("127.255.0.9", .loopback),
            ("10.0.0.1", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("172.32.0.1", .global),
            ("192.168.1.1", .private), ("100.64.0.1", .private), ("100.127.255.255", .private), ("100.128.0.1", .global),
            ("169.254.169.254", .linkLocal), ("224.0.0.1", .multicast), ("255.255.255.255", .broadcast), ("240.0.0.1", .reserved),
            ("192.0.2.1", .reserved), ("0.1.2.3", .unspecified),
            ("fd00::1", .private), ("fc00::1", .private), ("fe80::1", .linkLocal), ("febf::1", .linkLocal), ("fec0::1", .private),
            ("ff02::1", .multicast), ("2001:db8::1", .reserved), ("100::1", .reserved),
            // IPv4 inside IPv6: compatible, mapped, NAT64 (both prefixes), 6to4, Teredo.
            ("::127.0.0.1", .loopback), ("::ffff:10.0.0.1", .private), ("64:ff9b::a9fe:a9fe", .linkLocal),
            ("64:ff9b::808:808", .global), ("64:ff9b:1::c0a8:101", .private), ("2002:7f00:1::1", .loopback),
            ("2002:808:808::1", .global), ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", .global), ("2001:0:4136:e378:8000:63bf:3fff:fdd2", .reserved),
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", .loopback)
        ]
        for (text, kind) in expected {
            #expect(IPAddress(literal: text)?.kind == kind, "\(text)")
        }
    }

    @Test("the policy refuses all but global by default, and allows each class only when asked")
    func policy() {
        let strict = AddressPolicy.globalOnly
        #expect(strict.permits(IPAddress(literal: "8.8.8.8")!) && !strict.permits(IPAddress(literal: "127.0.0.1")!))
        let open = AddressPolicy(allowsLoopback: true, allowsPrivate: true, allowsLinkLocal: true)
        for text in ["127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "fd00::1"] { #expect(open.permits(IPAddress(literal: text)!), "\(text)") }
        for text in ["0.0.0.0", "224.0.0.1", "255.255.255.255", "240.0.0.1", "::"] { #expect(!open.permits(IPAddress(literal: text)!), "\(text)") }
        #expect(AddressPolicy(allowsLoopback: true).permits(IPAddress(literal: "127.0.0.1")!))
        #expect(!AddressPolicy(allowsLoopback: true).permits(IPAddress(literal: "10.0.0.1")!))
    }
}

@Suite("SSRF: checks before every connection, on the address connected to", .serialized)
struct SourceGuardTests {
    @Test("names resolving to private, link-local, loopback and other refused ranges are refused with no connection attempt")
    func refusedWithoutConnecting() async throws {
        let resolver = TableResolver([
            "intranet.test": ["10.1.2.3"], "metadata.test": ["169.254.169.254"], "cgnat.test": ["100.64.1.1"],
            "ula.test": ["fd12::1"], "mapped.test": ["::ffff:192.168.0.1"], "nat64.test": ["64:ff9b::a00:1"],
            "sixtofour.test": ["2002:a9fe:a9fe::1"], "zero.test": ["0.0.0.0"], "local.test": ["127.0.0.1"],
            "multicast.test": ["239.1.1.1"]
        ])
        let connector = CountingConnector()
        let loader = HTTPDataLoader(sourceGuard: SourceGuard(resolver: resolver), connector: connector)
        let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
        let urls =
            resolver.table.keys.map { "http://\($0)/a.png" } + [
                "http://2130706433/a.png", "http://0x7f000001/a.png", "http://0177.0.0.1/a.png", "http://127.1/a.png",
                "http://[::ffff:127.0.0.1]/a.png", "http://0.0.0.0/a.png", "http://[::1]:8080/a.png", "http://169.254.169.254/latest/meta-data"
            ]
        for text in urls {
            let e = await failure { _ = try await downloader.download(ImageDownloadRequest(url: URL(string: text)!)) }
            if case .addressNotAllowed? = e {} else { Issue.record("\(text): \(String(describing: e))") }
            #expect(e?.isTransient == false && e.map(FailedURLList.blocks) == true, "\(text)")
        }
        #expect(connector.attempts.withLock { $0 }.isEmpty)
        try await downloader.shutdown()
    }

    @Test("loopback is allowed only when the policy says so, and then the connection goes to the checked address")
    func loopbackAllowed() async throws {
        try await withServer { server in
            let resolver = TableResolver(["images.test": ["127.0.0.1"]])
            let refusing = CountingConnector()
            let strict = ImageDownloader(
                configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts),
                loaders: [HTTPDataLoader(sourceGuard: SourceGuard(resolver: resolver), connector: refusing)])
            let url = URL(string: "http://images.test:\(server.port)/img/a.png")!
            if case .addressNotAllowed(let host, let kind)? = await failure({ _ = try await strict.download(ImageDownloadRequest(url: url)) }) {
                #expect(host == "images.test" && kind == .loopback)
            } else {
                Issue.record("not refused")
            }
            #expect(refusing.attempts.withLock { $0 }.isEmpty && server.count("/img/a.png") == 0)

            let allowing = CountingConnector()
            let open = ImageDownloader(
                configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts),
                loaders: [
                    HTTPDataLoader(
                        sourceGuard: SourceGuard(policy: AddressPolicy(allowsLoopback: true), resolver: resolver), connector: allowing)
                ])
            let loaded = try await open.download(ImageDownloadRequest(url: url))
            #expect(loaded.data == LoadingFixtures.png)
            // Pinned: the host name went to the server (Host header), the connection to the checked address.
            #expect(allowing.attempts.withLock { $0 } == ["images.test@127.0.0.1"])
            #expect(server.headers("/img/a.png")?["host"] == "images.test:\(server.port)")
            try await strict.shutdown()
            try await open.shutdown()
        }
    }

    @Test("every redirect hop is checked again: a public source redirecting to a private address is refused at the hop")
    func redirectsChecked() async throws {
        try await withServer { server in
            let resolver = TableResolver(["public.test": ["127.0.0.1"], "private.test": ["10.0.0.7"]])
            let connector = CountingConnector()
            // Loopback stands in for the public origin here; the redirect's target is private.
            let loader = HTTPDataLoader(
                sourceGuard: SourceGuard(policy: AddressPolicy(allowsLoopback: true), resolver: resolver),
                connector: connector)
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
            let target = "http://private.test:\(server.port)/img/a.png"
            let url = URL(string: "http://public.test:\(server.port)/away?to=\(target)")!
            let e = await failure { _ = try await downloader.download(ImageDownloadRequest(url: url)) }
            if case .addressNotAllowed(let host, let kind)? = e {
                #expect(host == "private.test" && kind == .private)
            } else {
                Issue.record("\(String(describing: e))")
            }
            #expect(connector.attempts.withLock { $0 } == ["public.test@127.0.0.1"])
            try await downloader.shutdown()
        }
    }

    @Test("the allow-list is checked on the first URL and on every redirect")
    func allowList() async throws {
        try await withServer { server in
            let base = "http://127.0.0.1:\(server.port)"
            let connector = CountingConnector()
            let loader = HTTPDataLoader(
                sourceGuard: SourceGuard(
                    policy: AddressPolicy(allowsLoopback: true), resolver: TableResolver([:]),
                    permitsURL: { $0.path.hasPrefix("/img/") || $0.path == "/away" }),
                connector: connector)
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
            #expect(try await downloader.download(ImageDownloadRequest(url: URL(string: base + "/img/a.png")!)).data == LoadingFixtures.png)
            #expect(
                await failure { _ = try await downloader.download(ImageDownloadRequest(url: URL(string: base + "/status/200")!)) }
                    == .sourceNotAllowed(base + "/status/200"))
            let hop = await failure { _ = try await downloader.download(ImageDownloadRequest(url: URL(string: base + "/away?to=/chunked/a.png")!)) }
            #expect(hop == .sourceNotAllowed(base + "/chunked/a.png"), "\(String(describing: hop))")
            #expect(connector.attempts.withLock { $0 }.count == 2)
            try await downloader.shutdown()
        }
    }

    @Test("the system resolver reads literals without a lookup and resolves localhost (from /etc/hosts) to loopback")
    func systemResolver() async throws {
        // No name here may need a DNS server: tests send no packet beyond loopback.
        let resolver = SystemHostResolver()
        #expect(try await resolver.resolve("0x7f000001") == [IPAddress(literal: "127.0.0.1")!])
        #expect(try await resolver.resolve("[::1]") == [IPAddress(literal: "::1")!])
        #expect(try await resolver.resolve("localhost").allSatisfy { $0.kind == .loopback })
    }
}
