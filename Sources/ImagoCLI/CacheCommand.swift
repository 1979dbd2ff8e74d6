// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import ImagoCache
import ImagoCoders
import ImagoCommandLine
import ImagoCore
import ImagoProcessing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and maintain Imago's disk cache.",
        discussion: "The cache directory defaults to $XDG_CACHE_HOME/imago, else ~/.cache/imago.",
        subcommands: [Stats.self, List.self, Clear.self, Trim.self]
    )

    struct Location: ParsableArguments {
        @Option(help: "The cache directory. Default: $XDG_CACHE_HOME/imago, else ~/.cache/imago.")
        var cacheDir: String?

        @Option(help: "The cache namespace (a subdirectory).")
        var namespace = "default"

        var directory: URL { cacheDir.map { URL(fileURLWithPath: $0) } ?? DiskCache.defaultDirectory }

        /// Opens the cache. Without limits nothing is expired by merely looking.
        func open(maxSize: Int = 0, maxAge: Duration? = nil) throws -> DiskCache {
            do {
                return try DiskCache(directory: directory, namespace: namespace, maxAge: maxAge, maxSize: maxSize)
            } catch {
                throw CLIFailure.exit(error, file: directory.path)
            }
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the number of entries and their total size.")
        @OptionGroup var location: Location
        @Flag(help: "Print one JSON object.") var json = false

        func run() throws {
            let cache = try location.open()
            let stats = try wrap { try cache.statistics() }
            if json {
                print("{\"directory\":\"\(cache.directory.path)\",\"entries\":\(stats.count),\"bytes\":\(stats.totalSize)}")
            } else {
                print("directory: \(cache.directory.path)")
                print("entries:   \(stats.count)")
                print("size:      \(stats.totalSize) bytes (\(Console.byteCount(stats.totalSize)))")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List entries, least recently used first: size, last access, key.")
        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            for entry in try wrap({ try cache.entries() }) {
                print("\(entry.size)\t\(entry.accessed.formatted(.iso8601))\t\(entry.key)")
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every entry.")
        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            let before = try wrap { try cache.statistics() }
            try wrap { try cache.removeAll() }
            print("removed \(before.count) entries (\(before.totalSize) bytes)")
        }
    }

    struct Trim: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove expired entries, then the least recently used until half of --max-size remains.")
        @OptionGroup var location: Location
        @Option(help: "Size limit in bytes; over it, trim to half. Default 0: no size limit.") var maxSize = 0
        @Option(help: "Remove entries unused for longer than this many seconds. Default one week.") var maxAge: Double = 604_800

        func validate() throws {
            guard maxSize >= 0 else { throw ValidationError("--max-size must be 0 or more") }
            guard maxAge > 0 else { throw ValidationError("--max-age must be more than 0") }
        }

        func run() throws {
            let before = try wrap { try location.open().statistics() }
            let cache = try location.open(maxSize: maxSize, maxAge: .milliseconds(Int64((maxAge * 1000).rounded())))  // opening applies the limits
            try wrap { try cache.trim() }
            let after = try wrap { try cache.statistics() }
            print("removed \(before.count - after.count) entries; \(after.count) entries (\(after.totalSize) bytes) remain")
        }
    }
}

/// Runs `body`, turning any error into the tool's one-line failure.
func wrap<R>(_ body: () throws -> R) throws -> R {
    do { return try body() } catch { throw CLIFailure.exit(error, file: "cache") }
}
