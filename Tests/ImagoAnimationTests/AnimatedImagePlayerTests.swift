// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoAnimation

/// A test animation: frame i is a 2×2 buffer of value i; decodes are counted and can be held
/// back until released.
final class CountingAnimation: AnimatedImage, @unchecked Sendable {
    let durations: [Double]
    let loopCount: Int
    private let gate = Mutex<(open: Bool, decodes: [Int])>((true, []))

    init(durations: [Double], loopCount: Int = 0) {
        self.durations = durations
        self.loopCount = loopCount
    }

    var frameCount: Int { durations.count }
    var bytesPerFrame: Int { 16 }
    var canvasSize: PixelSize { PixelSize(width: 2, height: 2) }
    var pixelFormat: PixelFormat { .argb32Premultiplied }
    func duration(at index: Int) -> Double { durations[index] }
    var decodes: [Int] { gate.withLock { $0.decodes } }
    func hold() { gate.withLock { $0.open = false } }
    func release() { gate.withLock { $0.open = true } }

    func canvas(at index: Int) throws -> PixelBuffer {
        while !gate.withLock({ $0.open }) { usleep(1000) }
        gate.withLock { $0.decodes.append(index) }
        return try PixelBuffer(width: 2, height: 2, format: .argb32Premultiplied, bytes: [UInt8](repeating: UInt8(index % 256), count: 16))
    }
}

/// Records what a player shows.
final class Recorder: Sendable {
    private let state = Mutex<(frames: [Int], loops: [Int])>(([], []))
    var frames: [Int] { state.withLock { $0.frames } }
    var loops: [Int] { state.withLock { $0.loops } }

    init(_ player: AnimatedImagePlayer) {
        player.setFrameHandler { [weak self] f in self?.state.withLock { $0.frames.append(f.index) } }
        player.setLoopHandler { [weak self] l in self?.state.withLock { $0.loops.append(l) } }
    }
}

func ms(_ n: Int) -> Duration { .milliseconds(n) }

@Suite("AnimatedImagePlayer with a manual clock")
struct AnimatedImagePlayerTests {
    /// Drives `player` to each time in `times` (ms), waiting for the decoder before each step.
    static func drive(_ player: AnimatedImagePlayer, _ times: [Int]) async {
        for t in times {
            await player.waitForBuffer()
            player.update(now: ms(t))
        }
    }

    @Test("frame switches follow the durations; a late tick never jumps over a frame")
    func timing() async throws {
        let anim = CountingAnimation(durations: [0.1, 0.2, 0.3])
        let player = try AnimatedImagePlayer(image: anim, maxBufferSize: 3)
        let rec = Recorder(player)
        await Self.drive(player, [0, 50, 99, 100, 250, 299, 300, 599, 600])
        #expect(rec.frames == [1, 2, 0])
        // Ten seconds late: one frame, not a jump; the carry-over is capped at that frame's length.
        await Self.drive(player, [10_600])
        #expect(rec.frames == [1, 2, 0, 1])
        await Self.drive(player, [10_601])
        #expect(rec.frames == [1, 2, 0, 1, 2])
    }

    @Test("the loop count ends playback on the last frame; an override replaces it")
    func loops() async throws {
        let anim = CountingAnimation(durations: [0.1, 0.1, 0.1], loopCount: 2)
        let player = try AnimatedImagePlayer(image: anim, maxBufferSize: 3)
        let rec = Recorder(player)
        await Self.drive(player, Array(stride(from: 0, through: 1000, by: 100)))
        #expect(rec.frames == [1, 2, 0, 1, 2])
        #expect(rec.loops == [1])
        #expect(player.isFinished && player.currentFrame?.index == 2)

        let once = try AnimatedImagePlayer(image: anim, maxBufferSize: 3)
        once.loopCountOverride = 1
        let rec1 = Recorder(once)
        await Self.drive(once, Array(stride(from: 0, through: 1000, by: 100)))
        #expect(rec1.frames == [1, 2] && once.isFinished)
    }

    @Test("rate scales time, 0 stops it; reverse, bounce and reversed bounce orders")
    func rateAndModes() async throws {
        let anim = CountingAnimation(durations: [0.1, 0.1, 0.1, 0.1])
        let fast = try AnimatedImagePlayer(image: anim, maxBufferSize: 4)
        fast.playbackRate = 2
        let recFast = Recorder(fast)
        await Self.drive(fast, [0, 50, 100, 150])
        #expect(recFast.frames == [1, 2, 3])
        fast.playbackRate = 0
        await Self.drive(fast, [1000, 2000])
        #expect(recFast.frames == [1, 2, 3])

        let expected: [AnimationPlaybackMode: [Int]] = [
            .normal: [1, 2, 3, 0, 1, 2, 3, 0], .reverse: [2, 1, 0, 3, 2, 1, 0, 3],
            .bounce: [1, 2, 3, 2, 1, 0, 1, 2], .reversedBounce: [2, 1, 0, 1, 2, 3, 2, 1]
        ]
        for (mode, order) in expected {
            let player = try AnimatedImagePlayer(image: anim, maxBufferSize: 4)
            if mode == .reverse || mode == .reversedBounce { try player.seek(toFrame: 3) }
            player.playbackMode = mode
            let rec = Recorder(player)
            await Self.drive(player, Array(stride(from: 0, through: 800, by: 100)))
            #expect(rec.frames == order, "\(mode)")
        }
    }

    @Test("seek shows the frame at once and continues from it")
    func seek() async throws {
        let anim = CountingAnimation(durations: [0.1, 0.1, 0.1, 0.1, 0.1])
        let player = try AnimatedImagePlayer(image: anim, maxBufferSize: 2)
        let rec = Recorder(player)
        try player.seek(toFrame: 3, loop: 2)
        #expect(player.currentFrame?.index == 3 && player.currentLoop == 2)
        await Self.drive(player, [0, 100, 200])
        #expect(rec.frames == [3, 4, 0])
        #expect(player.currentLoop == 3)
        #expect(throws: ImageCodingError.self) { try player.seek(toFrame: 5) }
    }

    @Test("the buffer never holds more frames than its size; memory pressure empties it but for the next frame")
    func bufferBounds() async throws {
        let anim = CountingAnimation(durations: Array(repeating: 0.05, count: 40))
        let player = try AnimatedImagePlayer(image: anim, maxBufferSize: 5)
        let rec = Recorder(player)
        for step in 0...120 {
            await player.waitForBuffer()
            #expect(player.bufferedFrameCount <= 5)
            player.update(now: ms(step * 50))
        }
        #expect(rec.frames.count == 120)
        #expect(player.peakBufferedFrameCount <= 5 && player.peakBufferedFrameCount >= 4)
        await player.waitForBuffer()
        #expect(player.bufferedFrameCount == 5)
        player.handleMemoryPressure()
        #expect(player.bufferedFrameCount <= 1)
        // A buffer of every frame keeps them: the second loop decodes nothing.
        let all = CountingAnimation(durations: Array(repeating: 0.05, count: 10))
        let keeper = try AnimatedImagePlayer(image: all, maxBufferSize: 100)
        #expect(keeper.maxBufferSize == 10)
        for step in 0...25 {
            await keeper.waitForBuffer()
            keeper.update(now: ms(step * 50))
        }
        #expect(all.decodes.count == 10, "\(all.decodes)")
    }

    @Test("a buffer miss holds the current frame and never skips one, however late the decoder is")
    func missesHold() async throws {
        let anim = CountingAnimation(durations: Array(repeating: 0.1, count: 6))
        let player = try AnimatedImagePlayer(image: anim, maxBufferSize: 1)
        let rec = Recorder(player)
        await Self.drive(player, [0, 100])
        #expect(rec.frames == [1])
        await player.waitForBuffer()  // frame 2 is decoded ahead
        anim.hold()  // frame 3 will not be
        player.update(now: ms(200))  // shows 2, asks for 3
        player.update(now: ms(5_000))  // 3 is due and missing: 2 stays
        player.update(now: ms(9_000))
        let beforeRelease = rec.frames
        #expect(beforeRelease == [1, 2], "\(beforeRelease)")
        #expect(player.bufferMisses >= 2 && player.currentFrame?.index == 2)
        anim.release()
        for t in stride(from: 9_001, through: 9_010, by: 1) { await Self.drive(player, [t]) }
        await Self.drive(player, [9_200, 9_300, 9_400])
        let shown = rec.frames
        // Consecutive indices, none skipped.
        #expect(zip(shown, shown.dropFirst()).allSatisfy { ($0 + 1) % 6 == $1 }, "\(shown)")
        #expect(shown.count >= 5)
    }

    @Test("play and pause follow the injected clock; frames also arrive on the stream")
    func clockDriven() async throws {
        let clock = ManualPlaybackClock()
        let anim = CountingAnimation(durations: [0.1, 0.1, 0.1])
        let player = try AnimatedImagePlayer(image: anim, clock: clock, maxBufferSize: 3)
        let rec = Recorder(player)
        let stream = player.frames()
        await player.waitForBuffer()
        player.play()
        func waitFor(_ count: Int) async {
            for _ in 0..<500 where rec.frames.count < count { try? await Task.sleep(for: .milliseconds(2)) }
        }
        for expected in 1...3 {
            for _ in 0..<500 where clock.sleeperCount == 0 { try? await Task.sleep(for: .milliseconds(2)) }
            clock.advance(by: ms(100))
            await waitFor(expected)
        }
        #expect(rec.frames == [1, 2, 0])
        player.pause()
        #expect(!player.isPlaying)
        clock.advance(by: ms(1000))
        try await Task.sleep(for: .milliseconds(20))
        #expect(rec.frames == [1, 2, 0])
        player.play()
        for _ in 0..<500 where clock.sleeperCount == 0 { try? await Task.sleep(for: .milliseconds(2)) }
        clock.advance(by: ms(100))
        await waitFor(4)
        #expect(rec.frames == [1, 2, 0, 1])
        var it = stream.makeAsyncIterator()
        #expect(await it.next()?.index == 1)  // the newest frame, kept for a slow reader
        player.stop()
    }

    @Test("the automatic buffer divides the memory budget by the frame size, clamped to 1…frames")
    func automaticSize() throws {
        let physical = Double(ProcessInfo.processInfo.physicalMemory)
        let size = AnimatedImagePlayer.automaticBufferSize(bytesPerFrame: 4 << 20, frameCount: 1_000_000)
        #expect(size >= 1 && Double(size) <= physical * 0.2 / Double(4 << 20) + 1)
        #expect(AnimatedImagePlayer.automaticBufferSize(bytesPerFrame: Int.max / 2, frameCount: 50) == 1)
        #expect(AnimatedImagePlayer.automaticBufferSize(bytesPerFrame: 100, frameCount: 50) == 50)
        #expect(try AnimatedImagePlayer(image: CountingAnimation(durations: [0.1, 0.1])).maxBufferSize == 2)
    }

    @Test("frame images and sprite sheets: durations, rectangles, lazily decoded frames, typed errors")
    func frameAndSpriteImages() async throws {
        let a = try Fixtures.gradient(width: 8, height: 6), b = try Fixtures.coordinates(width: 8, height: 6)
        let frames = try FrameImage(images: [Image(buffer: a), Image(buffer: b)], durations: [0.2])
        #expect(frames.frameCount == 2 && frames.duration(at: 1) == 0.2 && frames.loopCount == 0)
        #expect(try frames.canvas(at: 1) == b.converted(to: .argb32Premultiplied))
        let encoded = try FrameImage(
            encoded: [
                ImageCoderRegistry.shared.encode(Image(buffer: a), as: .png),
                ImageCoderRegistry.shared.encode(Image(buffer: b), as: .png)
            ],
            durations: [0.1, 0.3], loopCount: 2)
        #expect(try encoded.canvas(at: 1) == b.converted(to: .argb32Premultiplied))
        #expect(encoded.bytesPerFrame == 8 * 6 * 4 && encoded.duration(at: 1) == 0.3)
        #expect(throws: ImageCodingError.self) { try FrameImage(images: [Image(buffer: a)], durations: [0.1, 0.2]) }

        let sheet = try SpriteSheetImage(
            sheet: Image(buffer: Fixtures.gradient(width: 40, height: 10)),
            rects: (0..<4).map { FrameRect(x: $0 * 10, y: 0, width: 10, height: 10) }, durations: [0.05])
        #expect(sheet.frameCount == 4 && sheet.contentsRect(at: 2) == FrameRect(x: 20, y: 0, width: 10, height: 10))
        #expect(sheet.bytesPerFrame == 400)
        #expect(throws: ImageCodingError.self) {
            try SpriteSheetImage(sheet: Image(buffer: a), rects: [FrameRect(x: 5, y: 0, width: 10, height: 6)], durations: [0.1])
        }
        let player = try AnimatedImagePlayer(image: sheet, maxBufferSize: 4)
        let rects = Mutex<[FrameRect?]>([])
        player.setFrameHandler { f in rects.withLock { $0.append(f.contentsRect) } }
        await Self.drive(player, [0, 50, 100])
        #expect(rects.withLock { $0 } == [FrameRect(x: 10, y: 0, width: 10, height: 10), FrameRect(x: 20, y: 0, width: 10, height: 10)])
    }
}
