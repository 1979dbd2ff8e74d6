// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `/info`'s JSON object: keys set one by one, written with sorted keys.
struct InfoReport {
    /// A JSON value.
    indirect enum Value: Encodable, Sendable {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case array([Value])
        case object([String: Value])

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .string(let v):
                var c = encoder.singleValueContainer()
                try c.encode(v)
            case .int(let v):
                var c = encoder.singleValueContainer()
                try c.encode(v)
            case .double(let v):
                var c = encoder.singleValueContainer()
                try c.encode(v.isFinite ? v : 0)
            case .bool(let v):
                var c = encoder.singleValueContainer()
                try c.encode(v)
            case .array(let v):
                var c = encoder.unkeyedContainer()
                for e in v { try c.encode(e) }
            case .object(let v):
                try v.encode(to: encoder)
            }
        }
    }

    private var fields: [String: Value] = [:]

    subscript(key: String) -> Value? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    /// The object as JSON, keys sorted, slashes unescaped.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(fields)
    }
}
