// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Usage: imago-play-bench auto|bounded|eager FILE SECONDS
//
// The Imago side of scripts/bench-play: plays FILE at 1× in real time for SECONDS through
// AnimatedImagePlayer and reports how it kept time.
//   auto   the lazy source and the automatic buffer (frames decoded ahead, bounded)
//   bounded the lazy source and a buffer of 8 frames
//   eager  every frame decoded up front, then played from memory (the buffer holds them all)
// Prints "frames_shown late_frames worst_late_ms misses max_buffered setup_ms".
// A frame is late when it appears more than 20 ms after the frame before it was due to end.
import Foundation
import ImagoAnimation
import ImagoCoders
import ImagoCore
import Synchronization

let args = CommandLine.arguments
guard args.count == 4, let seconds = Double(args[3]) else {
    FileHandle.standardError.write(Data("usage: imago-play-bench auto|bounded|eager FILE SECONDS\n".utf8))
    exit(2)
}
let data = try Data(contentsOf: URL(fileURLWithPath: args[2]))
let clock = ContinuousClock()
let setupStart = clock.now
let eager = args[1] == "eager"
let image = try ImageCoderRegistry.shared.decode(data, options: DecodeOptions(decodesFramesLazily: !eager))
let player = try AnimatedImagePlayer(image: image, maxBufferSize: eager ? image.frameCount : args[1] == "bounded" ? 8 : 0)
let setup = (clock.now - setupStart) / .milliseconds(1)

struct Stats {
    var shown = 0
    var late = 0
    var worst = 0.0
    var last: ContinuousClock.Instant?
    var lastDuration = 0.0
}
let stats = Mutex(Stats())
player.loopCountOverride = 0
player.setFrameHandler { frame in
    let now = ContinuousClock.now
    stats.withLock { s in
        if let last = s.last {
            let lateMs = ((now - last) / .milliseconds(1)) - max(s.lastDuration, 0.01) * 1000
            if lateMs > 20 { s.late += 1 }
            s.worst = max(s.worst, lateMs)
        }
        s.shown += 1
        s.last = now
        s.lastDuration = frame.duration
    }
}
stats.withLock {
    $0.last = ContinuousClock.now
    $0.lastDuration = image.duration(at: 0)
}
player.play()
try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
player.stop()
let s = stats.withLock { $0 }
print(String(format: "%d %d %.1f %d %d %.0f", s.shown, s.late, s.worst, player.bufferMisses, player.peakBufferedFrameCount, setup))
