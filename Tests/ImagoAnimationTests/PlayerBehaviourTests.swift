// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoAnimation

/// Frame i is 2×1 premultiplied pixels of byte value i; the frames in `failing` cannot be decoded.
struct ScriptedAnimation: AnimatedImage {
    var durations: [Double]
    var loopCount: Int = 0
    var failing: Set<Int> = []

    var frameCount: Int { durations.count }
    var bytesPerFrame: Int { 8 }
    var canvasSize: PixelSize { PixelSize(width: 2, height: 1) }
    var pixelFormat: PixelFormat { .argb32Premultiplied }
    func duration(at index: Int) -> Double { durations.indices.contains(index) ? durations[index] : 0 }

    func canvas(at index: Int) throws -> PixelBuffer {
        if failing.contains(index) { throw ImageCodingError.corrupt(.gif, "frame \(index) is damaged") }
        return try PixelBuffer(width: 2, height: 1, format: .argb32Premultiplied, bytes: [UInt8](repeating: UInt8(index), count: 8))
    }
}

/// What a player showed: each frame's index, loop and rectangle, and the loops it started.
final class PlayLog: Sendable {
    private struct State {
        var indices: [Int] = []
        var loops: [Int] = []
        var rects: [FrameRect?] = []
        var started: [Int] = []
    }

    private let state = Mutex(State())

    init(_ player: AnimatedImagePlayer) {
        player.setFrameHandler { [weak self] frame in
            self?.state.withLock { s in
                s.indices.append(frame.index)
                s.loops.append(frame.loop)
                s.rects.append(frame.contentsRect)
            }
        }
        player.setLoopHandler { [weak self] loop in self?.state.withLock { $0.started.append(loop) } }
    }

    var indices: [Int] { state.withLock { $0.indices } }
    var loops: [Int] { state.withLock { $0.loops } }
    var rects: [FrameRect?] { state.withLock { $0.rects } }
    var started: [Int] { state.withLock { $0.started } }
}

/// Waits (polling every 2 ms) until `condition` holds, for at most `limit` of polling.
func waitFor(_ limit: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async throws {
    try await poll(limit, sourceLocation: sourceLocation, condition)
}

@Suite("AnimatedImagePlayer: durations, loops, modes, seeking, errors and the buffer")
struct PlayerBehaviourTests {
    /// Drives `player` to each time in `times` (ms), waiting for the decoder before each step.
    static func drive(_ player: AnimatedImagePlayer, _ times: [Int]) async {
        for t in times {
            await player.waitForBuffer()
            player.update(now: .milliseconds(t))
        }
    }

    @Test("frames of 10 ms or less show for 10 ms; a single frame never moves and never finishes")
    func shortFrames() async throws {
        let zero = try AnimatedImagePlayer(image: ScriptedAnimation(durations: [0, 0, 0]), maxBufferSize: 3)
        let log = PlayLog(zero)
        await Self.drive(zero, [0, 5, 10, 15, 20])
        #expect(log.indices == [1, 2])
        #expect(zero.currentFrame?.duration == 0, "the frame reports its authored duration")
        #expect(AnimatedImagePlayer.shownDuration(0) == 0.01 && AnimatedImagePlayer.shownDuration(0.25) == 0.25)
        let still = try AnimatedImagePlayer(image: ScriptedAnimation(durations: [0.1], loopCount: 1), maxBufferSize: 1)
        let stillLog = PlayLog(still)
        await Self.drive(still, [0, 100, 5000, 60_000])
        #expect(stillLog.indices.isEmpty && !still.isFinished && still.currentFrame?.index == 0 && still.currentLoop == 0)
    }

    @Test("half speed doubles each frame's time; playing forever, each loop is announced and every frame carries its loop")
    func rateAndLoops() async throws {
        let slow = try AnimatedImagePlayer(image: ScriptedAnimation(durations: [0.1, 0.1]), maxBufferSize: 2)
        slow.playbackRate = 0.5
        let slowLog = PlayLog(slow)
        await Self.drive(slow, [0, 100, 190, 210])
        #expect(slowLog.indices == [1] && slow.playbackRate == 0.5)

        let forever = try AnimatedImagePlayer(image: ScriptedAnimation(durations: [0.1, 0.1]), maxBufferSize: 2)
        let log = PlayLog(forever)
        await Self.drive(forever, Array(stride(from: 0, through: 700, by: 100)))
        #expect(log.indices == [1, 0, 1, 0, 1, 0, 1])
        #expect(log.loops == [0, 1, 1, 2, 2, 3, 3] && log.started == [1, 2, 3])
        #expect(forever.currentLoop == 3 && !forever.isFinished)
    }

    @Test("a negative loop override means forever; clearing the override goes back to the image's count")
    func loopOverride() async throws {
        let anim = ScriptedAnimation(durations: [0.1, 0.1], loopCount: 1)
        let once = try AnimatedImagePlayer(image: anim, maxBufferSize: 2)
        let onceLog = PlayLog(once)
        await Self.drive(once, [0, 100, 200, 300])
        #expect(onceLog.indices == [1] && once.isFinished && once.currentFrame?.index == 1)

        let player = try AnimatedImagePlayer(image: anim, maxBufferSize: 2)
        player.loopCountOverride = -3
        #expect(player.loopCountOverride == 0)
        let log = PlayLog(player)
        await Self.drive(player, [0, 100, 200, 300, 400])
        #expect(log.indices == [1, 0, 1, 0] && !player.isFinished)
        player.loopCountOverride = nil
        await Self.drive(player, [500, 600, 700])
        #expect(log.indices == [1, 0, 1, 0, 1] && player.isFinished)
    }

    @Test("changing the mode while playing continues from the frame on screen in the new order")
    func modeChange() async throws {
        let player = try AnimatedImagePlayer(image: ScriptedAnimation(durations: Array(repeating: 0.1, count: 5)), maxBufferSize: 5)
        let log = PlayLog(player)
        await Self.drive(player, [0, 100, 200])
        player.playbackMode = .reverse
        await Self.drive(player, [300, 400, 500])
        #expect(log.indices == [1, 2, 1, 0, 4] && log.started == [1] && player.currentLoop == 1)
        // On frame 4, bouncing (0 1 2 3 4 3 2 1) goes on downwards.
        player.playbackMode = .bounce
        #expect(player.playbackMode == .bounce)
        await Self.drive(player, [600, 700, 800, 900, 1000])
        #expect(log.indices == [1, 2, 1, 0, 4, 3, 2, 1, 0, 1] && log.started == [1, 2])
    }

    @Test("one loop's order for the short cases: bouncing two frames or fewer repeats nothing")
    func cycles() {
        #expect(AnimatedImagePlayer.cycle(for: .bounce, count: 3) == [0, 1, 2, 1])
        #expect(AnimatedImagePlayer.cycle(for: .reversedBounce, count: 3) == [2, 1, 0, 1])
        #expect(AnimatedImagePlayer.cycle(for: .bounce, count: 2) == [0, 1])
        #expect(AnimatedImagePlayer.cycle(for: .reversedBounce, count: 2) == [1, 0])
        #expect(AnimatedImagePlayer.cycle(for: .bounce, count: 1) == [0] && AnimatedImagePlayer.cycle(for: .reverse, count: 1) == [0])
    }

    @Test("seeking after the end plays again from the frame sought; a negative loop is loop 0; indices out of range throw")
    func seekAfterEnd() async throws {
        let player = try AnimatedImagePlayer(image: ScriptedAnimation(durations: [0.1, 0.1, 0.1], loopCount: 1), maxBufferSize: 3)
        let log = PlayLog(player)
        await Self.drive(player, [0, 100, 200, 300])
        #expect(player.isFinished && log.indices == [1, 2])
        try player.seek(toFrame: 0, loop: -4)
        #expect(!player.isFinished && player.currentLoop == 0 && player.currentFrame?.index == 0)
        await Self.drive(player, [400, 500, 600])
        #expect(log.indices == [1, 2, 0, 1, 2] && player.isFinished)
        #expect(throws: ImageCodingError.invalidArgument("frame -1 is out of range: 3 frame(s)")) { try player.seek(toFrame: -1) }
        #expect(throws: ImageCodingError.invalidArgument("frame 3 is out of range: 3 frame(s)")) { try player.seek(toFrame: 3) }
    }

    @Test("a frame that cannot be decoded: the player is not made for frame 0, and a seek to another throws and changes nothing")
    func decodingErrors() async throws {
        #expect(throws: ImageCodingError.corrupt(.gif, "frame 0 is damaged")) {
            try AnimatedImagePlayer(image: ScriptedAnimation(durations: [0.1, 0.1], failing: [0]))
        }
        let player = try AnimatedImagePlayer(image: ScriptedAnimation(durations: [0.1, 0.1, 0.1], failing: [2]), maxBufferSize: 3)
        let log = PlayLog(player)
        #expect(throws: ImageCodingError.corrupt(.gif, "frame 2 is damaged")) { try player.seek(toFrame: 2) }
        #expect(player.currentFrame?.index == 0 && log.indices.isEmpty)
        try player.seek(toFrame: 1)
        #expect(player.currentFrame?.index == 1 && log.indices == [1])
        await player.waitForBuffer()
    }

    @Test("stop keeps the buffer unless asked to clear it")
    func stopClears() async throws {
        let player = try AnimatedImagePlayer(image: ScriptedAnimation(durations: Array(repeating: 0.1, count: 4)), maxBufferSize: 4)
        await player.waitForBuffer()
        #expect(player.bufferedFrameCount == 4 && player.peakBufferedFrameCount == 4)
        player.stop()
        #expect(player.bufferedFrameCount == 4 && !player.isPlaying)
        player.clearsBufferWhenStopped = true
        player.stop()
        #expect(player.bufferedFrameCount == 0)
    }

    @Test("a followed pressure watcher trims the buffer to the next frame at warning, and only then")
    func followsPressure() async throws {
        let player = try AnimatedImagePlayer(image: ScriptedAnimation(durations: Array(repeating: 0.1, count: 8)), maxBufferSize: 8)
        await player.waitForBuffer()
        #expect(player.bufferedFrameCount == 8)
        let level = Mutex(MemoryPressureLevel.normal)
        let watcher = MemoryPressureWatcher(source: .custom { level.withLock { $0 } })
        player.follow(watcher)
        watcher.poll()
        #expect(player.bufferedFrameCount == 8, "no pressure, nothing dropped")
        level.withLock { $0 = .warning }
        watcher.poll()
        #expect(player.bufferedFrameCount == 1)
        let log = PlayLog(player)
        await Self.drive(player, [0, 100])
        #expect(log.indices == [1] && player.bufferMisses == 0, "the frame kept is the next one")
    }

    @Test("played by its clock, a player stops by itself when the last loop ends, the last frame on screen")
    func playsToTheEnd() async throws {
        let clock = ManualPlaybackClock()
        let player = try AnimatedImagePlayer(image: ScriptedAnimation(durations: [0.1, 0.2], loopCount: 1), clock: clock, maxBufferSize: 2)
        let log = PlayLog(player)
        await player.waitForBuffer()
        player.play()
        #expect(player.isPlaying)
        try await waitFor { clock.sleeperCount == 1 }
        clock.advance(by: .milliseconds(100))
        try await waitFor { log.indices == [1] }
        try await waitFor { clock.sleeperCount == 1 }
        clock.advance(by: .milliseconds(200))
        try await waitFor { !player.isPlaying }
        #expect(player.isFinished && player.currentFrame?.index == 1 && log.indices == [1] && log.started.isEmpty)
        // Played again: frame 0 of loop 0 comes at once, not after the last frame's time again.
        player.play()
        try await waitFor { log.indices == [1, 0] }
        #expect(player.currentFrame?.index == 0 && player.currentFrame?.loop == 0 && player.isPlaying && !player.isFinished)
        try await waitFor { clock.sleeperCount == 1 }
        clock.advance(by: .milliseconds(100))
        try await waitFor { log.indices == [1, 0, 1] }
    }
}

@Suite("Playback clocks")
struct PlaybackClockTests {
    @Test("a manual clock wakes each sleeper when its deadline passes, at once for a past deadline, and throws on cancellation")
    func manualClock() async throws {
        let clock = ManualPlaybackClock()
        try await clock.sleep(until: .zero)
        #expect(clock.now == .zero && clock.sleeperCount == 0)
        final class Woken: Sendable { let values = Mutex<[Int]>([]) }
        let woken = Woken()
        let early = Task {
            try await clock.sleep(until: .milliseconds(50))
            woken.values.withLock { $0.append(50) }
        }
        let late = Task {
            try await clock.sleep(until: .milliseconds(100))
            woken.values.withLock { $0.append(100) }
        }
        try await waitFor { clock.sleeperCount == 2 }
        clock.advance(by: .milliseconds(60))
        try await early.value
        #expect(woken.values.withLock { $0 } == [50] && clock.sleeperCount == 1 && clock.now == .milliseconds(60))
        clock.advance(by: .milliseconds(40))
        try await late.value
        #expect(woken.values.withLock { $0 } == [50, 100] && clock.sleeperCount == 0)
        let cancelled = Task { try await clock.sleep(until: .seconds(3600)) }
        try await waitFor { clock.sleeperCount == 1 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("the system clock starts near 0, moves forward, and sleeps until a deadline")
    func systemClock() async throws {
        let clock = SystemPlaybackClock()
        let start = clock.now
        #expect(start >= .zero && start < .seconds(60))
        try await clock.sleep(until: start + .milliseconds(5))
        #expect(clock.now >= start + .milliseconds(5))
    }
}
