// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoLoading

@Suite("Disk writes survive a normal exit; connection errors read plainly")
struct ExitFlushTests {
    static let probe = TestFiles.builtProduct("ImagoLoadingExitProbe")

    @Test("load, exit without finishPendingStores, load again in a new process: the second reads the disk")
    func writesSurviveExit() async throws {
        try await withServer { server in
            let dir = try TestFiles.temporaryDirectory("imago-exit")
            let url = server.url("/img/a.png").absoluteString
            // Each write sleeps 400 ms first, so it is still pending when the first process returns from main.
            let (status1, out1, err1) = try await Subprocess.run(Self.probe, [dir.path, url, "400"])
            #expect(status1 == 0, "\(err1)")
            #expect(out1.trimmingCharacters(in: .whitespacesAndNewlines) == "network")
            let (status2, out2, err2) = try await Subprocess.run(Self.probe, [dir.path, url])
            #expect(status2 == 0, "\(err2)")
            #expect(out2.trimmingCharacters(in: .whitespacesAndNewlines) == "disk")
            #expect(server.count("/img/a.png") == 1)
        }
    }

    @Test("the exit drain waits for queued writes, within its time limit")
    func drainWaitsForQueue() async throws {
        let queue = WorkQueue(label: "exit-test", maxConcurrentCount: 1)
        let id = ExitFlush.register(queue)
        defer { ExitFlush.unregister(id) }
        let done = Counter()
        for _ in 0..<3 {
            queue.submit {
                Thread.sleep(forTimeInterval: 0.05)
                done.increment()
            }
        }
        // Generous limits: in the parallel suite, other tests' blocking work can keep the
        // queue's thread waiting for seconds. What is checked is that the drain waits. The drain
        // covers every registered queue, other tests' disk writers too, so it blocks a thread of
        // its own rather than one of the cooperative pool those tests need to finish.
        #expect(await blocking { ExitFlush.drainAll(within: .seconds(120)) })
        #expect(done.count == 3)
        #expect(queue.blockUntilIdle(timeout: .zero))
        // A queue that does not drain in time is reported, not waited on forever.
        queue.submit { Thread.sleep(forTimeInterval: 0.5) }
        #expect(!queue.blockUntilIdle(timeout: .milliseconds(20)))
        #expect(await blocking { queue.blockUntilIdle(timeout: .seconds(120)) })
    }

    @Test("a refused connection names the host and port and says what happened")
    func refusedConnectionMessage() async throws {
        // A loopback port bound but not listening: connections to it are refused, and no other
        // test's server can take it while this test runs (a closed port could be reused).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let manager = patientManager(memoryCache: nil)
        let error = await failure { _ = try await manager.loadImage(with: URL(string: "http://127.0.0.1:\(port)/a.png")!) }
        let message = try #require(error).localizedDescription
        #expect(message == "connection failed: 127.0.0.1:\(port) refused the connection (nothing listens there)")
        #expect(message == error?.description)
    }

    @Test("every public error type gives the same message as LocalizedError and description")
    func localizedDescriptions() {
        let errors: [any Error & CustomStringConvertible] = [
            ImageLoadingError.unacceptableStatusCode(404),
            ImageCodingError.truncated(.png, "IDAT ends early"),
            ImageCodingError.emptyData,
            DiskCacheError.io(path: "/x", reason: "disk full")
        ]
        for error in errors {
            #expect(error.localizedDescription == error.description)
            #expect(!error.localizedDescription.contains("error 0"))
        }
        #expect(ImageLoadingError.unacceptableStatusCode(404).localizedDescription == "unacceptable HTTP status 404")
    }
}
