// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The order frames play in.
public enum AnimationPlaybackMode: String, Sendable, Hashable, CaseIterable {
    /// First to last, then again.
    case normal
    /// Last to first, then again.
    case reverse
    /// First to last and back to the first; one loop is the way there and back.
    case bounce
    /// Last to first and back to the last.
    case reversedBounce
}

/// Plays an `AnimatedImage` against a clock, headless (SDWebImage's `SDAnimatedImagePlayer`,
/// YYImage's `YYAnimatedImageView` engine).
///
/// ```swift
/// import Imago
///
/// // Frame 0 now, the others decoded on demand from the encoded bytes.
/// let gif = try ImageCoderRegistry.shared.decode(data, options: DecodeOptions(decodesFramesLazily: true))
/// let player = try AnimatedImagePlayer(image: gif)        // real time, buffer sized from free memory
/// player.play()
/// for await frame in player.frames() {                     // each frame as its time comes
///     draw(frame.buffer)
///     if frame.index == gif.frameCount - 1 { break }       // once through
/// }
/// player.stop()
/// ```
///
/// - **Timing.** Each frame shows for its duration divided by ``playbackRate``. A tick that
///   arrives late never jumps over a frame: time carried into the next frame is capped at that
///   frame's duration, so every frame is shown.
/// - **Buffer.** Frames ahead of the one on screen are decoded one at a time, at low priority
///   on the shared processing queue (`WorkQueue.processing`), into a buffer of at
///   most ``maxBufferSize`` frames, growing by one frame per pass up to that size (YYImage's
///   incremental buffer). When the next frame is not decoded yet, the current one is
///   held, never skipped.
/// - **Memory.** ``maxBufferSize`` 0 (the default) sizes the buffer from the machine:
///   min(20% of physical memory, 60% of available memory) ÷ bytes per frame, clamped to
///   1…frame count. ``handleMemoryPressure()`` drops every buffered frame but the next.
/// - **Driving.** ``play()`` drives the player from its ``PlaybackClock``; a display loop of your
///   own can instead call ``update(now:)`` on every refresh. Frames arrive through
///   ``setFrameHandler(_:)``, ``setLoopHandler(_:)`` and the ``frames()`` stream.
public final class AnimatedImagePlayer: Sendable {
    /// One frame as shown.
    public struct Frame: Sendable {
        /// The frame's index in the animation.
        public var index: Int
        /// The loop it belongs to, from 0.
        public var loop: Int
        /// The pixels (premultiplied ARGB32).
        public var buffer: PixelBuffer
        /// The part of ``buffer`` to show (sprite sheets), or `nil` for all of it.
        public var contentsRect: FrameRect?
        /// Its duration in seconds at rate 1.
        public var duration: Double
    }

    /// The animation.
    public let image: any AnimatedImage
    /// The clock ``play()`` follows.
    public let clock: any PlaybackClock
    /// Most frames decoded ahead, after resolving 0 to the automatic size.
    public let maxBufferSize: Int

    private struct State {
        var rate: Double = 1
        var mode: AnimationPlaybackMode = .normal
        var loopOverride: Int?
        var clearsBufferWhenStopped = false
        var cycle: [Int] = []
        var position = 0
        var loop = 0
        var time: Double = 0
        var lastUpdate: Duration?
        var playing = false
        var finished = false
        var current: Frame?
        var buffer: [Int: PixelBuffer] = [:]
        var bufferTarget = 1
        var peakBuffered = 0
        var misses = 0
        var fetch: Task<Void, Never>?
        var driver: Task<Void, Never>?
        var frameHandler: (@Sendable (Frame) -> Void)?
        var loopHandler: (@Sendable (Int) -> Void)?
        var streams: [Int: AsyncStream<Frame>.Continuation] = [:]
        var nextStreamID = 0
    }

    private let state = Mutex(State())

    /// Creates a player showing frame 0 (decoded now).
    ///
    /// - Parameters:
    ///   - image: The animation.
    ///   - clock: Default ``SystemPlaybackClock`` (real time).
    ///   - maxBufferSize: Frames decoded ahead; 0 (the default) for the automatic size, 1 to decode
    ///     only the next frame, a value ≥ the frame count to keep every frame once decoded.
    /// - Throws: frame 0's decoding errors.
    public init(image: any AnimatedImage, clock: any PlaybackClock = SystemPlaybackClock(), maxBufferSize: Int = 0) throws {
        self.image = image
        self.clock = clock
        let count = max(1, image.frameCount)
        self.maxBufferSize = maxBufferSize > 0 ? min(maxBufferSize, count) : Self.automaticBufferSize(bytesPerFrame: image.bytesPerFrame, frameCount: count)
        let first = try Self.drawable(image, 0)
        state.withLock { s in
            s.cycle = Self.cycle(for: .normal, count: count)
            s.current = Frame(index: 0, loop: 0, buffer: first, contentsRect: image.contentsRect(at: 0), duration: image.duration(at: 0))
            if self.maxBufferSize >= count {
                s.buffer[0] = first
                s.peakBuffered = 1
            }  // keeping every frame
        }
        requestFetch()
    }

    /// min(20% of physical memory, 60% of available memory) ÷ `bytesPerFrame`, clamped to 1…`frameCount`.
    package static func automaticBufferSize(bytesPerFrame: Int, frameCount: Int) -> Int {
        let physical = Double(ProcessInfo.processInfo.physicalMemory)
        let available = Double(Self.availableMemory() ?? UInt64(physical))
        let budget = min(physical * 0.2, available * 0.6)
        let frames = bytesPerFrame > 0 ? Int(budget / Double(bytesPerFrame)) : frameCount
        return max(1, min(frameCount, frames))
    }

    /// `MemAvailable` from /proc/meminfo, in bytes.
    static func availableMemory() -> UInt64? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: "/proc/meminfo")) else { return nil }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { UInt64($0) }
            return digits.map { $0 * 1024 }
        }
        return nil
    }

    // MARK: Settings

    /// Speed: 1 is as authored, 2 twice as fast; 0 or less stops the clock (the frame stays). Default 1.
    public var playbackRate: Double {
        get { state.withLock { $0.rate } }
        set { state.withLock { $0.rate = newValue } }
    }

    /// Frame order. Default ``AnimationPlaybackMode/normal``. Changing it continues from the
    /// frame on screen in the new order.
    public var playbackMode: AnimationPlaybackMode {
        get { state.withLock { $0.mode } }
        set {
            state.withLock { s in
                s.mode = newValue
                s.cycle = Self.cycle(for: newValue, count: max(1, image.frameCount))
                s.position = s.current.flatMap { s.cycle.firstIndex(of: $0.index) } ?? 0
            }
            requestFetch()
        }
    }

    /// Plays this many loops instead of the image's loop count (0 forever); `nil` (the default)
    /// uses the image's.
    public var loopCountOverride: Int? {
        get { state.withLock { $0.loopOverride } }
        set { state.withLock { $0.loopOverride = newValue.map { max(0, $0) } } }
    }

    /// Empty the buffer when ``stop()`` is called. Default `false`.
    public var clearsBufferWhenStopped: Bool {
        get { state.withLock { $0.clearsBufferWhenStopped } }
        set { state.withLock { $0.clearsBufferWhenStopped = newValue } }
    }

    /// Called with each frame shown (on the thread that advanced the player).
    public func setFrameHandler(_ handler: (@Sendable (Frame) -> Void)?) { state.withLock { $0.frameHandler = handler } }

    /// Called with the number of the loop that just started (1, 2, …).
    public func setLoopHandler(_ handler: (@Sendable (Int) -> Void)?) { state.withLock { $0.loopHandler = handler } }

    /// Frames as they are shown, from now on; the newest is kept when the reader falls behind.
    public func frames() -> AsyncStream<Frame> {
        let (stream, continuation) = AsyncStream<Frame>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { s -> Int in
            s.nextStreamID += 1
            s.streams[s.nextStreamID] = continuation
            return s.nextStreamID
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.streams.removeValue(forKey: id) } }
        return stream
    }

    // MARK: State

    /// The frame on screen.
    public var currentFrame: Frame? { state.withLock { $0.current } }
    /// The loop being played, from 0.
    public var currentLoop: Int { state.withLock { $0.loop } }
    /// Whether ``play()`` is driving the player.
    public var isPlaying: Bool { state.withLock { $0.playing } }
    /// Whether the last loop has ended (the last frame stays on screen).
    public var isFinished: Bool { state.withLock { $0.finished } }
    /// Frames decoded ahead now.
    public var bufferedFrameCount: Int { state.withLock { $0.buffer.count } }
    /// The most frames ever buffered at once.
    public var peakBufferedFrameCount: Int { state.withLock { $0.peakBuffered } }
    /// How often a frame was due but not decoded yet (the current frame was held).
    public var bufferMisses: Int { state.withLock { $0.misses } }

    // MARK: Control

    /// Starts (or resumes) playing from the clock. Does nothing when already playing.
    public func play() {
        let (start, replayed) = state.withLock { s -> (Bool, Frame?) in
            guard !s.playing else { return (false, nil) }
            s.playing = true
            s.lastUpdate = clock.now
            guard s.finished else { return (true, nil) }
            // Played again from the start: frame 0 at once when it is at hand; else placed at the
            // end of a loop before the first, the last frame's time used up, so the next update
            // shows frame 0 of loop 0 as soon as it is decoded.
            s.finished = false
            let first = s.cycle.first ?? 0
            if let pixels = s.buffer[first] {
                s.loop = 0
                s.position = 0
                s.time = 0
                let frame = Frame(
                    index: first, loop: 0, buffer: pixels, contentsRect: image.contentsRect(at: first),
                    duration: image.duration(at: first))
                s.current = frame
                return (true, frame)
            }
            s.loop = -1
            s.position = max(0, s.cycle.count - 1)
            s.time = s.current.map { Self.shownDuration(image.duration(at: $0.index)) } ?? 0
            return (true, nil)
        }
        guard start else { return }
        if let replayed { deliver(replayed, loopStarted: 0) }
        requestFetch()
        // The playback clock, one per player: it sleeps between frames and decodes nothing.
        let task = Task(priority: .userInitiated) { [weak self] in
            guard let self else { return }
            await self.drive()
        }
        state.withLock { $0.driver = task }
    }

    /// Pauses on the current frame; ``play()`` resumes from there.
    public func pause() {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.playing = false
            s.lastUpdate = nil
            defer { s.driver = nil }
            return s.driver
        }
        task?.cancel()
    }

    /// Pauses and, with ``clearsBufferWhenStopped``, empties the buffer.
    public func stop() {
        pause()
        let fetch = state.withLock { s -> Task<Void, Never>? in
            guard s.clearsBufferWhenStopped else { return nil }
            s.buffer.removeAll()
            s.bufferTarget = 1
            return s.fetch
        }
        fetch?.cancel()
    }

    /// Shows frame `index` of loop `loop` now (decoding it if needed) and continues from there.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for an index out of range;
    ///   the frame's decoding errors.
    public func seek(toFrame index: Int, loop: Int = 0) throws {
        guard index >= 0, index < image.frameCount else {
            throw ImageCodingError.invalidArgument("frame \(index) is out of range: \(image.frameCount) frame(s)")
        }
        let buffered = state.withLock { $0.buffer[index] }
        let pixels = try buffered ?? Self.drawable(image, index)
        state.withLock { s in
            s.position = s.cycle.firstIndex(of: index) ?? 0
            s.loop = max(0, loop)
            s.time = 0
            s.finished = false
            s.current = Frame(
                index: index, loop: s.loop, buffer: pixels, contentsRect: image.contentsRect(at: index),
                duration: image.duration(at: index))
            if s.playing { s.lastUpdate = clock.now }
        }
        emitCurrent()
        requestFetch()
    }

    /// Drops every buffered frame but the next one (memory pressure).
    public func handleMemoryPressure() {
        state.withLock { s in
            let next = s.cycle.isEmpty ? nil : s.cycle[(s.position + 1) % s.cycle.count]
            s.buffer = s.buffer.filter { $0.key == next }
            s.bufferTarget = 1
        }
    }

    /// Calls ``handleMemoryPressure()`` whenever `watcher` reports pressure.
    public func follow(_ watcher: MemoryPressureWatcher) {
        watcher.onPressure { [weak self] level in if level > .normal { self?.handleMemoryPressure() } }
    }

    /// Waits for the decode task in flight (tests; a warm start before ``play()``).
    package func waitForBuffer() async {
        while let task = state.withLock({ $0.fetch }) { await task.value }
    }

    // MARK: Advancing

    /// Advances the animation to clock time `now`: the display-link entry point. At most one
    /// frame is advanced per call, and only when it is decoded.
    public func update(now: Duration) {
        var shown: Frame?
        var loopStarted: Int?
        var wantFetch = false
        state.withLock { s in
            guard let last = s.lastUpdate else {
                s.lastUpdate = now
                return
            }
            s.lastUpdate = now
            guard s.rate > 0, !s.finished, s.cycle.count > 1 || image.frameCount > 1 else { return }
            s.time += Double((now - last) / .nanoseconds(1)) / 1e9 * s.rate
            guard let current = s.current else { return }
            let duration = Self.shownDuration(image.duration(at: current.index))
            guard s.time >= duration else { return }
            // The next position in the cycle, and whether a loop ends here.
            var nextPosition = s.position + 1
            var nextLoop = s.loop
            if nextPosition >= s.cycle.count {
                nextLoop += 1
                let loops = s.loopOverride ?? image.loopCount
                if loops > 0, nextLoop >= loops {
                    s.finished = true
                    s.time = 0
                    return
                }
                nextPosition = 0
            }
            let nextIndex = s.cycle[nextPosition]
            guard let pixels = s.buffer[nextIndex] else {
                // A miss: hold this frame, ready to switch the moment the next one is decoded.
                s.misses += 1
                s.time = duration
                wantFetch = true
                return
            }
            s.time -= duration
            let nextDuration = Self.shownDuration(image.duration(at: nextIndex))
            if s.time > nextDuration { s.time = nextDuration }  // never jump over a frame
            if nextLoop != s.loop { loopStarted = nextLoop }
            s.position = nextPosition
            s.loop = nextLoop
            let frame = Frame(
                index: nextIndex, loop: nextLoop, buffer: pixels, contentsRect: image.contentsRect(at: nextIndex),
                duration: image.duration(at: nextIndex))
            s.current = frame
            if maxBufferSize < image.frameCount { s.buffer[nextIndex] = nil }  // on screen now, not ahead
            shown = frame
            wantFetch = true
        }
        if let shown { deliver(shown, loopStarted: loopStarted) }
        if wantFetch { requestFetch() }
    }

    /// Frames shorter than 10 ms are shown for 10 ms, so a zero duration cannot spin.
    static func shownDuration(_ d: Double) -> Double { max(d, 0.01) }

    private func deliver(_ frame: Frame, loopStarted: Int?) {
        let (handler, loopHandler, streams) = state.withLock { ($0.frameHandler, $0.loopHandler, Array($0.streams.values)) }
        if let loopStarted { loopHandler?(loopStarted) }
        handler?(frame)
        for c in streams { c.yield(frame) }
    }

    private func emitCurrent() {
        guard let frame = state.withLock({ $0.current }) else { return }
        deliver(frame, loopStarted: nil)
    }

    /// The driver: sleeps until the current frame is due, then updates.
    private func drive() async {
        while !Task.isCancelled {
            let wait: Duration? = state.withLock { s in
                guard s.playing else { return nil }
                if s.finished || s.rate <= 0 { return .milliseconds(50) }
                guard let current = s.current else { return nil }
                let remaining = (Self.shownDuration(image.duration(at: current.index)) - s.time) / s.rate
                // Due now but not decoded: look again shortly (the decoder also shows it when done).
                return .nanoseconds(Int64(max(0.004, remaining) * 1e9))
            }
            guard let wait else { return }
            do { try await clock.sleep(until: clock.now + wait) } catch { return }
            update(now: clock.now)
            if state.withLock({ $0.finished }) {
                state.withLock {
                    $0.playing = false
                    $0.driver = nil
                }
                return
            }
        }
    }

    // MARK: Decoding ahead

    /// The frames to hold next, in play order after the current position.
    private static func window(_ s: State, size: Int) -> [Int] {
        guard !s.cycle.isEmpty else { return [] }
        var out: [Int] = []
        var seen = Set<Int>()
        var p = s.position
        for _ in 0..<(s.cycle.count * 2) where out.count < size {
            p = (p + 1) % s.cycle.count
            let index = s.cycle[p]
            if seen.insert(index).inserted { out.append(index) }
        }
        return out
    }

    /// Starts the one decode task unless it is running.
    private func requestFetch() {
        state.withLock { s in
            guard s.fetch == nil else { return }
            // One per player; its decodes run on the shared, bounded processing queue.
            s.fetch = Task(priority: .utility) { [weak self] in
                guard let self else { return }
                await self.fetchLoop()
            }
        }
    }

    /// Decodes the frames the window lacks, one at a time, on the shared processing queue (so
    /// however many players run, their decodes share its bounded threads).
    private func fetchLoop() async {
        while true {
            // What to decode next, and what to drop: the buffer holds the window only.
            let next: Int? = state.withLock { s in
                let window = Self.window(s, size: s.bufferTarget)
                let keep = Set(maxBufferSize >= image.frameCount ? Array(0..<image.frameCount) : Self.window(s, size: maxBufferSize))
                s.buffer = s.buffer.filter { keep.contains($0.key) }
                if let missing = window.first(where: { s.buffer[$0] == nil }) { return missing }
                if s.bufferTarget < maxBufferSize {
                    s.bufferTarget += 1  // grow one frame per pass
                    return Self.window(s, size: s.bufferTarget).first { s.buffer[$0] == nil }
                }
                return nil
            }
            guard let index = next, !Task.isCancelled else {
                state.withLock { $0.fetch = nil }
                return
            }
            let decoded = await decodeFrame(index)
            guard let pixels = decoded else {
                state.withLock { $0.fetch = nil }
                return
            }
            state.withLock { s in
                let keep = maxBufferSize >= image.frameCount || Self.window(s, size: maxBufferSize).contains(index)
                if keep, s.buffer.count < maxBufferSize || s.buffer[index] != nil {
                    s.buffer[index] = pixels
                    s.peakBuffered = max(s.peakBuffered, s.buffer.count)
                }
            }
            // A frame that was due and missed is shown now.
            if state.withLock({ $0.playing }) { update(now: clock.now) }
        }
    }

    /// Frame `index`'s canvas in the format frames are drawn in, premultiplied ARGB32 (a no-op for
    /// animations that decode to it, as every decoder's lazy animation does).
    private static func drawable(_ image: any AnimatedImage, _ index: Int) throws -> PixelBuffer {
        try image.canvas(at: index).converted(to: .argb32Premultiplied)
    }

    /// Frame `index`, decoded on the shared processing queue; `nil` when it cannot be.
    private func decodeFrame(_ index: Int) async -> PixelBuffer? {
        let image = self.image
        do {
            return try await WorkQueue.processing.run(priority: .low) { try Self.drawable(image, index) }
        } catch {
            return nil
        }
    }

    /// One loop's frame indices in play order.
    static func cycle(for mode: AnimationPlaybackMode, count: Int) -> [Int] {
        let forward = Array(0..<count)
        switch mode {
        case .normal: return forward
        case .reverse: return forward.reversed()
        case .bounce: return count > 2 ? forward + forward.dropFirst().dropLast().reversed() : forward
        case .reversedBounce:
            let back = Array(forward.reversed())
            return count > 2 ? back + back.dropFirst().dropLast().reversed() : back
        }
    }
}
