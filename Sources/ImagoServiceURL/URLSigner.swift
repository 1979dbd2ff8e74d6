// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Crypto
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs and verifies service URL paths as imgproxy does: HMAC-SHA256 keyed with the hex-decoded
/// key, over the hex-decoded salt followed by the path after the signature (starting with `/`),
/// truncated to ``signatureSize`` bytes and base64url-encoded without padding.
///
/// ```swift
/// let signer = try URLSigner(keys: [.init(keyHex: key, saltHex: salt)])
/// let path = "/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg"
/// let url = "https://images.example.com/" + signer.signature(for: path) + path
/// ```
///
/// Several key and salt pairs may be configured (to rotate keys); a signature made with any of
/// them verifies. Verification compares in constant time.
public struct URLSigner: Sendable {
    /// One key and its salt.
    public struct KeyPair: Sendable, Hashable {
        /// The HMAC key.
        public var key: [UInt8]
        /// Bytes put before the path.
        public var salt: [UInt8]

        /// A pair from hex text, as `IMAGO_KEY` and `IMAGO_SALT` give them.
        ///
        /// - Throws: ``ServiceURLError/invalidArgument(option:reason:)`` when either is not hex.
        public init(keyHex: String, saltHex: String) throws(ServiceURLError) {
            guard let key = Hex.decode(keyHex), !key.isEmpty else { throw .invalidArgument(option: "key", reason: "not hex") }
            guard let salt = Hex.decode(saltHex) else { throw .invalidArgument(option: "salt", reason: "not hex") }
            self.key = key
            self.salt = salt
        }

        /// A pair from raw bytes.
        public init(key: [UInt8], salt: [UInt8]) {
            self.key = key
            self.salt = salt
        }
    }

    /// The pairs; the first one signs.
    public let keys: [KeyPair]
    /// Bytes of the digest kept, 1–32. Default 32.
    public let signatureSize: Int

    /// Creates a signer.
    ///
    /// - Parameters:
    ///   - keys: At least one pair; the first one signs, any one verifies.
    ///   - signatureSize: 1–32; default 32.
    /// - Throws: ``ServiceURLError/invalidArgument(option:reason:)`` without keys or for a size out of range.
    public init(keys: [KeyPair], signatureSize: Int = 32) throws(ServiceURLError) {
        guard !keys.isEmpty else { throw .invalidArgument(option: "key", reason: "no key given") }
        guard (1...32).contains(signatureSize) else { throw .invalidArgument(option: "signature size", reason: "\(signatureSize) is not 1-32") }
        self.keys = keys
        self.signatureSize = signatureSize
    }

    /// Pairs from comma-separated hex lists, as the environment gives them (`IMAGO_KEY=k1,k2`,
    /// `IMAGO_SALT=s1,s2`).
    ///
    /// - Throws: ``ServiceURLError/invalidArgument(option:reason:)`` when the lists differ in
    ///   length or hold something that is not hex.
    public init(keyList: String, saltList: String, signatureSize: Int = 32) throws(ServiceURLError) {
        let keys = keyList.split(separator: ",").map { PathName.trimmed($0) }
        let salts = saltList.split(separator: ",").map { PathName.trimmed($0) }
        guard keys.count == salts.count else {
            throw .invalidArgument(option: "key", reason: "\(keys.count) keys but \(salts.count) salts")
        }
        var pairs: [KeyPair] = []
        for (k, s) in zip(keys, salts) { pairs.append(try KeyPair(keyHex: k, saltHex: s)) }
        try self.init(keys: pairs, signatureSize: signatureSize)
    }

    /// The signature of `path` (everything after the signature segment; a leading `/` is added
    /// when missing) with the first key.
    public func signature(for path: String) -> String {
        Base64URL.encode(digest(for: path, with: keys[0]))
    }

    /// Whether `signature` is the signature of `path` under any configured pair, compared in
    /// constant time.
    ///
    /// The text is compared, not the decoded bytes: base64's last character carries spare bits
    /// that a decoder ignores, and a signature that differs in them is still a different signature.
    public func verify(_ signature: String, for path: String) -> Bool {
        let given = Array(signature.utf8)
        var matched = false
        for pair in keys {
            let expected = Array(Base64URL.encode(digest(for: path, with: pair)).utf8)
            guard expected.count == given.count else { continue }
            var difference: UInt8 = 0
            for (a, b) in zip(given, expected) { difference |= a ^ b }
            matched = matched || difference == 0
        }
        return matched
    }

    private func digest(for path: String, with pair: KeyPair) -> [UInt8] {
        let normalized = path.hasPrefix("/") ? path : "/" + path
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: pair.key))
        hmac.update(data: pair.salt)
        hmac.update(data: Array(normalized.utf8))
        return Array(Array(hmac.finalize()).prefix(signatureSize))
    }
}

/// Hex text to bytes.
enum Hex {
    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var i = 0
        while i < chars.count {
            guard let h = value(chars[i]), let l = value(chars[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }
}
