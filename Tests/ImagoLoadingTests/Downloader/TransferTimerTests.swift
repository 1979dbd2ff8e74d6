// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoLoading

@Suite("The three deadlines of a transfer")
struct TransferTimerTests {
    /// How the watch ended: which timeout fired, or nil when it was cancelled first.
    func outcome(_ timer: TransferTimer, cancelAfter: Duration = .seconds(5)) async -> ImageLoadingError.Timeout? {
        let watch = Task { try await timer.watch() }
        let stop = Task {
            try? await Task.sleep(for: cancelAfter)
            watch.cancel()
        }
        defer { stop.cancel() }
        do {
            try await watch.value
            return nil
        } catch ImageLoadingError.timedOut(let kind) {
            return kind
        } catch {
            return nil
        }
    }

    @Test("no head in time is the connect timeout")
    func connect() async {
        let timer = TransferTimer(ImageDownloadTimeouts(connect: .milliseconds(20), read: .seconds(60), total: nil))
        #expect(await outcome(timer, cancelAfter: .seconds(60)) == .connect)
    }

    @Test("after the head, a gap between bytes is the read timeout; bytes arriving keep it away")
    func read() async throws {
        let timer = TransferTimer(ImageDownloadTimeouts(connect: .seconds(60), read: .milliseconds(60), total: nil))
        timer.headArrived()
        // Bytes every 20 ms for 100 ms, from a thread of its own (a busy cooperative pool must
        // not be able to hold them back and fire the timeout early).
        let fed = DispatchSemaphore(value: 0)
        DispatchQueue(label: "feeder").async {
            for _ in 0..<5 {
                Thread.sleep(forTimeInterval: 0.02)
                timer.bytesArrived()
            }
            fed.signal()
        }
        let start = ContinuousClock.now
        #expect(await outcome(timer, cancelAfter: .seconds(60)) == .read)
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        await blocking { fed.wait() }
    }

    @Test("the whole transfer is the total timeout, whatever the bytes do")
    func total() async {
        let timer = TransferTimer(ImageDownloadTimeouts(connect: .seconds(60), read: .seconds(60), total: .milliseconds(40)))
        timer.headArrived()
        #expect(await outcome(timer, cancelAfter: .seconds(60)) == .total)
    }

    @Test("a transfer that ends first cancels the watch: no timeout")
    func cancelled() async {
        // Timeouts far beyond any stall of a busy test machine.
        let timer = TransferTimer(ImageDownloadTimeouts(connect: .seconds(600), read: .seconds(600), total: .seconds(600)))
        #expect(await outcome(timer, cancelAfter: .milliseconds(20)) == nil)
    }

    @Test("a downloader's per-request timeouts replace its own")
    func perRequest() async throws {
        let loader = MockDataLoader()
        loader.register("/slow.png", data: Data(repeating: 1, count: 8), chunks: 8, delay: .milliseconds(40))
        let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
        let quick = ImageDownloadTimeouts(connect: .seconds(60), read: .milliseconds(10), total: nil)
        let slow = await failure { _ = try await downloader.download(ImageDownloadRequest(url: loader.url("/slow.png"), timeouts: quick)) }
        #expect(slow == .timedOut(.read), "\(String(describing: slow))")
        #expect(try await downloader.download(ImageDownloadRequest(url: loader.url("/slow.png"))).data.count == 8)
        #expect(loader.cancelledCount == 1)
    }
}
