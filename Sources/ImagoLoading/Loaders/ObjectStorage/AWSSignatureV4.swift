// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Crypto
import ImagoCore

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) for requests to S3 and the object stores that
/// speak its API (OpenStack Swift's `s3api`, MinIO, Ceph, Google Cloud Storage's interoperability
/// endpoint with HMAC keys).
///
/// `sign(method:url:headers:payloadHash:date:)` returns the headers to send: the ones given,
/// `Host` unless given, `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` with session
/// credentials, and `Authorization`. Every header given is signed. The canonical request follows
/// AWS's rules for S3: the path's segments percent-encoded once (RFC 3986's unreserved characters
/// kept), the query's parameters encoded the same way and sorted, header names lowercased and
/// values trimmed with inner runs of spaces collapsed. Checked against the examples of AWS's S3
/// documentation.
public struct AWSSignatureV4: Sendable {
    /// An access key: its ID, its secret, and the session token of temporary credentials.
    public struct Credentials: Sendable, Hashable {
        /// `AWS_ACCESS_KEY_ID`.
        public var accessKeyID: String
        /// `AWS_SECRET_ACCESS_KEY`.
        public var secretAccessKey: String
        /// `AWS_SESSION_TOKEN`, sent as `x-amz-security-token`; `nil` (default) for long-term keys.
        public var sessionToken: String?

        /// Credentials from their parts; `sessionToken` defaults to `nil`.
        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }
    }

    /// The SHA-256 of an empty payload, what a `GET` or `HEAD` signs.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash of a request whose body is not signed (`UNSIGNED-PAYLOAD`).
    package static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// The key that signs.
    package var credentials: Credentials
    /// The region of the credential scope (`us-east-1`, or the store's own name for it).
    package var region: String
    /// The service of the credential scope. Default `s3`.
    package var service: String

    /// A signer for `region` and `service` (default `s3`).
    package init(credentials: Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to send with the request: `headers`, `Host` when absent, `x-amz-date`,
    /// `x-amz-content-sha256`, `x-amz-security-token` for session credentials, and
    /// `Authorization`, all signed.
    ///
    /// - Parameters:
    ///   - method: The HTTP method, as sent (`GET`).
    ///   - url: The request's URL, with its path and query as sent.
    ///   - headers: Headers to send and sign besides those added (`Range`, `If-None-Match`).
    ///   - payloadHash: The body's SHA-256 in lowercase hex. Default ``emptyPayloadHash``.
    ///   - date: The signing time, sent as `x-amz-date`. Default now.
    package func sign(
        method: String, url: URL, headers: [(name: String, value: String)] = [],
        payloadHash: String = emptyPayloadHash, date: Date = Date()
    ) -> [(name: String, value: String)] {
        let stamp = Self.timestamp(date)
        var all = headers
        if !all.contains(where: { $0.name.lowercased() == "host" }) { all.append(("Host", Self.host(of: url))) }
        all.append(("x-amz-date", stamp.full))
        all.append(("x-amz-content-sha256", payloadHash))
        if let token = credentials.sessionToken { all.append(("x-amz-security-token", token)) }
        let request = canonicalRequest(method: method, url: url, headers: all, payloadHash: payloadHash)
        let scope = "\(stamp.day)/\(region)/\(service)/aws4_request"
        let toSign = stringToSign(canonicalRequest: request.text, timestamp: stamp.full, scope: scope)
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: signingKey(day: stamp.day)))
        all.append(
            (
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(request.signedHeaders), Signature=\(signature)"
            ))
        return all
    }

    /// The canonical request and its signed-header list, as AWS defines them.
    func canonicalRequest(
        method: String, url: URL, headers: [(name: String, value: String)], payloadHash: String
    ) -> (text: String, signedHeaders: String) {
        var byName: [String: [String]] = [:]
        for (name, value) in headers {
            // Trimmed, inner runs of spaces and tabs made one space.
            let trimmed = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            byName[name.lowercased(), default: []].append(trimmed)
        }
        let names = byName.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(byName[$0, default: []].joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let text = [
            method.uppercased(), Self.canonicalPath(of: url), Self.canonicalQuery(of: url), canonicalHeaders, signedHeaders, payloadHash
        ].joined(separator: "\n")
        return (text, signedHeaders)
    }

    /// `AWS4-HMAC-SHA256`, the time, the scope and the canonical request's hash.
    func stringToSign(canonicalRequest: String, timestamp: String, scope: String) -> String {
        "AWS4-HMAC-SHA256\n\(timestamp)\n\(scope)\n\(Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8))))"
    }

    /// The key of a day: HMACs of the day, region, service and `aws4_request` in turn.
    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// The path, each segment percent-encoded once; `/` when empty.
    static func canonicalPath(of url: URL) -> String {
        let path = url.path(percentEncoded: false)
        return path.isEmpty ? "/" : encode(path, keepingSlash: true)
    }

    /// The query's parameters, decoded, encoded again by AWS's rules and sorted.
    static func canonicalQuery(of url: URL) -> String {
        guard let query = url.query(percentEncoded: true), !query.isEmpty else { return "" }
        var pairs: [(name: String, value: String)] = []
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = encode(percentDecoded(parts[0]), keepingSlash: false)
            let value = parts.count > 1 ? encode(percentDecoded(parts[1]), keepingSlash: false) : ""
            pairs.append((name, value))
        }
        pairs.sort { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
        return pairs.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    /// `text` with its `%XX` escapes decoded (kept as it is when an escape is broken).
    static func percentDecoded(_ text: Substring) -> String {
        PercentEscapes.bytes(String(text)).map { String(decoding: $0, as: UTF8.self) } ?? String(text)
    }

    /// `text` percent-encoded but for RFC 3986's unreserved characters (and `/` when asked).
    static func encode(_ text: String, keepingSlash: Bool) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlash:
                out.append("/")
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// The `Host` header of `url`: its host, and its port when not the scheme's default.
    static func host(of url: URL) -> String {
        let host = url.host(percentEncoded: false) ?? ""
        guard let port = url.port else { return host }
        let isDefault = (url.scheme?.lowercased() == "https" && port == 443) || (url.scheme?.lowercased() == "http" && port == 80)
        return isDefault ? host : "\(host):\(port)"
    }

    /// `20130524T000000Z` and `20130524` for `date`, in UTC.
    static func timestamp(_ date: Date) -> (full: String, day: String) {
        let t = CivilTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        let two = CivilTime.two
        let day = "\(t.year)\(two(t.month))\(two(t.day))"
        return ("\(day)T\(two(t.hour))\(two(t.minute))\(two(t.second))Z", day)
    }

    private static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
