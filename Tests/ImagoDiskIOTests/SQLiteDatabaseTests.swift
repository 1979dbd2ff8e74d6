// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Dispatch
import Foundation
import ImagoDiskIO
import Synchronization
import Testing

@Suite("SQLiteDatabase")
struct SQLiteDatabaseTests {
    struct Stop: Error {}

    /// One row of the round-trip table, as the `Row` accessors give it.
    struct Stored: Equatable {
        var text: String?
        var int: Int64
        var real: Double
        var blob: Data?
        var nulls: [Bool]
    }

    /// Column 0 of every row of `sql`, as text.
    static func texts(_ db: SQLiteDatabase, _ sql: String, _ bindings: [SQLiteDatabase.Value] = []) throws -> [String?] {
        var texts: [String?] = []
        try db.query(sql, bindings) { texts.append($0.text(0)) }
        return texts
    }

    @Test("opening creates the file in WAL mode with synchronous=NORMAL; execute runs several statements")
    func opensInWALMode() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let db = try SQLiteDatabase(path: dir.file("m.sqlite"))
        #expect(FileManager.default.fileExists(atPath: dir.file("m.sqlite")))
        #expect(try Self.texts(db, "PRAGMA journal_mode") == ["wal"])
        #expect(try Self.texts(db, "PRAGMA synchronous") == ["1"])
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)")
        #expect(FileManager.default.fileExists(atPath: dir.file("m.sqlite-wal")))
        #expect(try Self.texts(db, "SELECT x FROM t ORDER BY x") == ["1", "2"])
    }

    @Test("text, integer, real, blob, empty blob and NULL bind and read back as themselves; cached statements rebind")
    func valuesRoundTrip() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let db = try SQLiteDatabase(path: dir.file("v.sqlite"))
        try db.execute("CREATE TABLE v(id INTEGER PRIMARY KEY, t, i, r, b)")
        let blob = Data(pattern(1000))
        let insert = "INSERT INTO v(id, t, i, r, b) VALUES (?, ?, ?, ?, ?)"
        try db.query(insert, [.int(1), .text("héllo, wörld ✓"), .int(.min), .real(-2.5), .blob(blob)])
        try db.query(insert, [.int(2), .text(""), .int(.max), .real(1e300), .blob(Data())])
        try db.query(insert, [.int(3), .blob(nil), .blob(nil), .blob(nil), .blob(nil)])
        var rows: [Stored] = []
        try db.query("SELECT t, i, r, b FROM v ORDER BY id") { row in
            let nulls = [row.isNull(0), row.isNull(1), row.isNull(2), row.isNull(3)]
            rows.append(Stored(text: row.text(0), int: row.int64(1), real: row.double(2), blob: row.blob(3), nulls: nulls))
        }
        let none = [false, false, false, false]
        #expect(rows.count == 3)
        #expect(rows.first == Stored(text: "héllo, wörld ✓", int: .min, real: -2.5, blob: blob, nulls: none))
        #expect(rows.dropFirst().first == Stored(text: "", int: .max, real: 1e300, blob: Data(), nulls: none))
        #expect(rows.last == Stored(text: nil, int: 0, real: 0, blob: nil, nulls: [true, true, true, true]))
        // The statement is cached: it runs again with new bindings, and those left unbound are NULL.
        let runs: [[SQLiteDatabase.Value]] = [[.int(1), .text("a")], [.int(2), .text("b")], [.int(3)]]
        var seen: [[String?]] = []
        for bindings in runs {
            try db.query("SELECT ?1, ?2", bindings) { row in seen.append([row.text(0), row.text(1)]) }
        }
        #expect(seen == [["1", "a"], ["2", "b"], ["3", nil]])
    }

    @Test("bad SQL, missing tables and constraint violations throw SQLite's message; the connection stays usable")
    func errors() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let db = try SQLiteDatabase(path: dir.file("e.sqlite"))
        let syntax = #expect(throws: SQLiteError.self) { try db.execute("SELEC 1") }
        #expect(syntax?.message.contains("syntax error") == true)
        #expect(syntax?.message.hasSuffix("(in: SELEC 1)") == true)
        #expect(syntax?.description == syntax?.message)
        let missing = #expect(throws: SQLiteError.self) { try db.query("SELECT * FROM missing") }
        #expect(missing?.message.contains("no such table: missing") == true)
        try db.execute("CREATE TABLE t(k TEXT PRIMARY KEY)")
        try db.query("INSERT INTO t(k) VALUES (?)", [.text("a")])
        let duplicate = #expect(throws: SQLiteError.self) { try db.query("INSERT INTO t(k) VALUES (?)", [.text("a")]) }
        #expect(duplicate?.message.contains("UNIQUE constraint failed") == true)
        try db.query("INSERT INTO t(k) VALUES (?)", [.text("b")])
        #expect(try Self.texts(db, "SELECT k FROM t ORDER BY k") == ["a", "b"])
        // An error from the row callback stops the query; the statement then runs again from its start.
        var firstRun: [String?] = []
        #expect(throws: Stop.self) {
            try db.query("SELECT k FROM t ORDER BY k") { row in
                firstRun.append(row.text(0))
                throw Stop()
            }
        }
        #expect(firstRun == ["a"])
        #expect(try Self.texts(db, "SELECT k FROM t ORDER BY k") == ["a", "b"])
    }

    @Test("transaction commits and returns the body's value, or rolls back and rethrows, nested ones included")
    func transactions() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let db = try SQLiteDatabase(path: dir.file("t.sqlite"))
        try db.execute("CREATE TABLE t(v)")
        let inserted = try db.transaction {
            try db.query("INSERT INTO t VALUES (1)")
            try db.query("INSERT INTO t VALUES (2)")
            return 2
        }
        #expect(inserted == 2)
        #expect(throws: Stop.self) {
            try db.transaction {
                try db.query("INSERT INTO t VALUES (3)")
                throw Stop()
            }
        }
        // BEGIN inside a transaction fails, and the outer transaction rolls back.
        #expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.query("INSERT INTO t VALUES (4)")
                try db.transaction { try db.query("INSERT INTO t VALUES (5)") }
            }
        }
        try db.transaction { try db.query("INSERT INTO t VALUES (6)") }
        #expect(try Self.texts(db, "SELECT v FROM t ORDER BY v") == ["1", "2", "6"])
    }

    @Test("data committed before closing is there after reopening; a missing folder or a non-database fails to open")
    func reopenAndOpenFailures() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = dir.file("p.sqlite")
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("CREATE TABLE kv(k TEXT PRIMARY KEY, v BLOB)")
            try db.query("INSERT INTO kv VALUES (?, ?)", [.text("key"), .blob(Data([1, 2, 3]))])
        }
        let reopened = try SQLiteDatabase(path: path)
        var value: Data?
        try reopened.query("SELECT v FROM kv WHERE k = ?", [.text("key")]) { value = $0.blob(0) }
        #expect(value == Data([1, 2, 3]))
        let missing = #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: dir.file("no/such/db.sqlite")) }
        #expect(missing?.message.hasPrefix("cannot open \(dir.file("no/such/db.sqlite")): ") == true)
        let junk = try dir.put("junk.sqlite", [UInt8](repeating: 0x41, count: 4096))
        let notDatabase = #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: junk) }
        #expect(notDatabase?.message.contains("not a database") == true)
    }

    @Test("two connections share a file: commits are seen, and a writer without busy timeout is refused during the other's transaction")
    func twoConnections() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let first = try SQLiteDatabase(path: dir.file("s.sqlite"))
        let second = try SQLiteDatabase(path: dir.file("s.sqlite"), busyTimeoutMilliseconds: 0)
        try first.execute("CREATE TABLE t(v)")
        try first.query("INSERT INTO t VALUES (1)")
        #expect(try Self.texts(second, "SELECT v FROM t") == ["1"])
        try first.transaction {
            try first.query("INSERT INTO t VALUES (2)")
            #expect(try Self.texts(second, "SELECT count(*) FROM t") == ["1"], "uncommitted rows are invisible")
            let busy = #expect(throws: SQLiteError.self) { try second.transaction { try second.query("INSERT INTO t VALUES (3)") } }
            #expect(busy?.message.contains("locked") == true)
        }
        try second.query("INSERT INTO t VALUES (3)")
        #expect(try Self.texts(first, "SELECT v FROM t ORDER BY v") == ["1", "2", "3"])
    }

    @Test("connections on several threads, each writing in its own transactions, all get their rows in")
    func concurrentWriters() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = dir.file("w.sqlite")
        let db = try SQLiteDatabase(path: path)
        try db.execute("CREATE TABLE t(worker INTEGER, n INTEGER)")
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                let mine = try SQLiteDatabase(path: path)
                for n in 0..<25 {
                    try mine.transaction { try mine.query("INSERT INTO t VALUES (?, ?)", [.int(Int64(worker)), .int(Int64(n))]) }
                }
            } catch {
                failures.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        let failed = failures.withLock { $0 }
        #expect(failed.isEmpty, "\(failed)")
        #expect(try Self.texts(db, "SELECT count(*) || ' ' || count(DISTINCT worker) || ' ' || sum(n) FROM t") == ["100 4 1200"])
    }
}
