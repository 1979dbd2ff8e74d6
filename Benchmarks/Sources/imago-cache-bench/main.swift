// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Memory-cache benchmark in YYCache's published shape, so the numbers compare:
// 200k sets, 200k replacing sets, 200k hits, 100k random gets, 200k misses,
// on one thread and on two, for Imago's MemoryCache, Foundation's NSCache and a
// Dictionary behind a lock. Prints a Markdown table of milliseconds (best of 5 runs).
import Foundation
import ImagoCache
import Synchronization

let count = 200_000
let keys = (0..<count).map { "key-\($0)" }
let nsKeys = keys.map { NSString(string: $0) }
let missKeys = (0..<count).map { "miss-\($0)" }
let nsMissKeys = missKeys.map { NSString(string: $0) }
var generator = SystemRandomNumberGenerator()
let randomIndices = (0..<(count / 2)).map { _ in Int.random(in: 0..<count, using: &generator) }
let value = NSNumber(value: 42)

/// The operations every contender provides.
protocol Contender: AnyObject {
    func set(_ i: Int)
    func get(_ i: Int) -> Bool
    func miss(_ i: Int) -> Bool
}

final class ImagoContender: Contender {
    let cache = MemoryCache<String, NSNumber>(costLimit: .max, countLimit: .max, entryCostRatio: 1)
    func set(_ i: Int) { cache.setValue(value, forKey: keys[i]) }
    func get(_ i: Int) -> Bool { cache.value(forKey: keys[i]) != nil }
    func miss(_ i: Int) -> Bool { cache.value(forKey: missKeys[i]) != nil }
}

final class NSCacheContender: Contender {
    let cache = NSCache<NSString, NSNumber>()
    func set(_ i: Int) { cache.setObject(value, forKey: nsKeys[i]) }
    func get(_ i: Int) -> Bool { cache.object(forKey: nsKeys[i]) != nil }
    func miss(_ i: Int) -> Bool { cache.object(forKey: nsMissKeys[i]) != nil }
}

final class LockedDictionaryContender: Contender {
    let dictionary = Mutex<[String: NSNumber]>([:])
    func set(_ i: Int) { dictionary.withLock { $0[keys[i]] = value } }
    func get(_ i: Int) -> Bool { dictionary.withLock { $0[keys[i]] } != nil }
    func miss(_ i: Int) -> Bool { dictionary.withLock { $0[missKeys[i]] } != nil }
}

/// Runs `body` over `0..<n` split across `threads` threads; returns milliseconds.
func timed(_ n: Int, threads: Int, _ body: @escaping (Int) -> Void) -> Double {
    let start = ContinuousClock.now
    if threads == 1 {
        for i in 0..<n { body(i) }
    } else {
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            var i = t
            while i < n {
                body(i)
                i += threads
            }
        }
    }
    return (ContinuousClock.now - start) / .milliseconds(1)
}

let phases = ["set 200k", "replace 200k", "get 200k", "random get 100k", "miss 200k"]

func run(_ make: () -> any Contender, threads: Int) -> [Double] {
    var best = [Double](repeating: .infinity, count: phases.count)
    for _ in 0..<5 {
        let c = make()
        var hits = 0
        let t = [
            timed(count, threads: threads) { c.set($0) },
            timed(count, threads: threads) { c.set($0) },
            timed(count, threads: threads) { if c.get($0) { hits &+= 0 } },
            timed(count / 2, threads: threads) { _ = c.get(randomIndices[$0]) },
            timed(count, threads: threads) { _ = c.miss($0) }
        ]
        for k in 0..<t.count { best[k] = min(best[k], t[k]) }
        _ = hits
    }
    return best
}

print("| threads | phase | Imago MemoryCache ms | Dictionary + lock ms | NSCache ms | Imago / dictionary | NSCache / Imago |")
print("|---:|---|---:|---:|---:|---:|---:|")
var worstDict = 0.0, worstNS = Double.infinity
for threads in [1, 2] {
    let imago = run({ ImagoContender() }, threads: threads)
    let dict = run({ LockedDictionaryContender() }, threads: threads)
    let ns = run({ NSCacheContender() }, threads: threads)
    for k in 0..<phases.count {
        worstDict = max(worstDict, imago[k] / dict[k])
        worstNS = min(worstNS, ns[k] / imago[k])
        print(
            String(
                format: "| %d | %@ | %.1f | %.1f | %.1f | %.2fx | %.2fx |", threads, phases[k], imago[k], dict[k], ns[k],
                imago[k] / dict[k], ns[k] / imago[k]))
    }
}
print(
    String(
        format: "\nWorst Imago / locked dictionary: %.2fx (target <= 2x). Smallest NSCache / Imago: %.2fx (target >= 3x).",
        worstDict, worstNS))
