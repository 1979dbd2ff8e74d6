// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CSQLite

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Why a SQLite call failed: SQLite's own message and the statement it was running.
package struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

/// A SQLite connection with the few operations the disk cache's manifest needs. Owns the
/// handle and closes it exactly once. Not thread-safe by itself: its owner only touches it
/// inside a `Mutex`, which is what makes the `@unchecked Sendable` sound.
package final class SQLiteDatabase: @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// SQLite's "copy the bytes now" destructor, which Swift cannot import as a macro.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Opens (creating if needed) the database at `path` in WAL mode, with a busy timeout so
    /// several processes can share it.
    ///
    /// - Throws: ``SQLiteError`` when the file cannot be opened or is not a database.
    package init(path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError("cannot open \(path): \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    private var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? lastError
            sqlite3_free(error)
            throw SQLiteError("\(message) (in: \(sql.prefix(60)))")
        }
    }

    /// A value to bind to a statement parameter.
    package enum Value: Sendable {
        case text(String)
        case int(Int64)
        case real(Double)
        case blob(Data?)
    }

    /// One result row. Valid only inside the row callback of ``query(_:_:row:)``: do not keep it.
    package struct Row {
        fileprivate let statement: OpaquePointer

        fileprivate init(_ statement: OpaquePointer) {
            self.statement = statement
        }

        /// Column `i` as an integer (0 for NULL).
        package func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(statement, i) }
        /// Column `i` as a double (0 for NULL).
        package func double(_ i: Int32) -> Double { sqlite3_column_double(statement, i) }
        /// Whether column `i` is NULL.
        package func isNull(_ i: Int32) -> Bool { sqlite3_column_type(statement, i) == SQLITE_NULL }
        /// Column `i` as text, or `nil` for NULL.
        package func text(_ i: Int32) -> String? { sqlite3_column_text(statement, i).map { String(cString: $0) } }
        /// Column `i` as bytes, or `nil` for NULL (an empty blob is empty data).
        package func blob(_ i: Int32) -> Data? {
            guard !isNull(i) else { return nil }
            guard let p = sqlite3_column_blob(statement, i) else { return Data() }
            return Data(bytes: p, count: Int(sqlite3_column_bytes(statement, i)))
        }
    }

    /// Runs `sql` with `bindings`, calling `row` for each result row. Statements are cached.
    package func query(_ sql: String, _ bindings: [Value] = [], row: ((Row) throws -> Void)? = nil) throws {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (i, value) in bindings.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .text(let s): sqlite3_bind_text(statement, index, s, -1, Self.transient)
            case .int(let v): sqlite3_bind_int64(statement, index, v)
            case .real(let v): sqlite3_bind_double(statement, index, v)
            case .blob(let d?) where d.isEmpty:
                sqlite3_bind_zeroblob(statement, index, 0)  // an empty value, not NULL
            case .blob(let d?):
                d.withUnsafeBytes { _ = sqlite3_bind_blob64(statement, index, $0.baseAddress, sqlite3_uint64($0.count), Self.transient) }
            case .blob(nil): sqlite3_bind_null(statement, index)
            }
        }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_ROW {
                try row?(Row(statement))
                continue
            }
            if rc == SQLITE_DONE { return }
            throw SQLiteError(lastError)
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    package func transaction<R>(_ body: () throws -> R) throws -> R {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let s = statements[sql] { return s }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteError("\(lastError) (in: \(sql.prefix(60)))")
        }
        statements[sql] = statement
        return statement
    }
}
