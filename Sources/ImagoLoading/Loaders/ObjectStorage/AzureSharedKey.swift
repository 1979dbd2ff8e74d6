// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Crypto
import ImagoCore

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Azure Storage's Shared Key authorization (the Blob service's scheme for version 2009-09-19
/// and later): an HMAC-SHA256, keyed by the account key, of the verb, the standard headers in
/// their fixed order (`Content-Length` empty when zero), the `x-ms-` headers sorted, and the
/// canonicalized resource (`/ACCOUNT/PATH`, then each query parameter on its own line as
/// `name:value`, names lowercased and sorted, a parameter's values sorted and joined by commas).
/// Checked against the string to sign and the canonicalized resources of Microsoft's
/// "Authorize with Shared Key" article.
package struct AzureSharedKey: Sendable {
    /// The storage account's name.
    package let account: String
    private let key: SymmetricKey

    /// The REST version requests declare (`x-ms-version`).
    package static let version = "2021-08-06"

    /// A signer for `account` with its base64 key; `nil` when the key is not base64.
    package init?(account: String, key: String) {
        guard let bytes = Data(base64Encoded: key), !bytes.isEmpty else { return nil }
        self.account = account
        self.key = SymmetricKey(data: bytes)
    }

    /// The headers to send: `headers`, `x-ms-date` (`date`, default now) and `x-ms-version`
    /// unless given, and `Authorization: SharedKey ACCOUNT:SIGNATURE`.
    package func sign(
        method: String, url: URL, headers: [(name: String, value: String)] = [], date: Date = Date()
    ) -> [(name: String, value: String)] {
        var all = headers
        if !all.contains(where: { $0.name.lowercased() == "x-ms-date" }) { all.append(("x-ms-date", HTTPDate.format(date))) }
        if !all.contains(where: { $0.name.lowercased() == "x-ms-version" }) { all.append(("x-ms-version", Self.version)) }
        let text = stringToSign(method: method, url: url, headers: all)
        let signature = Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: key)).base64EncodedString()
        all.append(("Authorization", "SharedKey \(account):\(signature)"))
        return all
    }

    /// The string to sign of a request with `headers`.
    func stringToSign(method: String, url: URL, headers: [(name: String, value: String)]) -> String {
        var byName: [String: String] = [:]
        for (name, value) in headers {
            let lower = name.lowercased()
            let trimmed = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            byName[lower] = byName[lower].map { $0 + "," + trimmed } ?? trimmed
        }
        let standard = [
            "content-encoding", "content-language", "content-length", "content-md5", "content-type", "date", "if-modified-since",
            "if-match", "if-none-match", "if-unmodified-since", "range"
        ].map { name -> String in
            let value = byName[name] ?? ""
            return name == "content-length" && value == "0" ? "" : value
        }
        let canonicalHeaders = byName.keys.filter { $0.hasPrefix("x-ms-") }.sorted().map { "\($0):\(byName[$0] ?? "")\n" }.joined()
        return ([method.uppercased()] + standard).joined(separator: "\n") + "\n" + canonicalHeaders + canonicalizedResource(of: url)
    }

    /// `/ACCOUNT` and the URL's path as sent, then its query parameters, one per line.
    func canonicalizedResource(of url: URL) -> String {
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        var parameters: [String: [String]] = [:]
        for item in (url.query(percentEncoded: true) ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = AWSSignatureV4.percentDecoded(parts[0]).lowercased()
            parameters[name, default: []].append(parts.count > 1 ? AWSSignatureV4.percentDecoded(parts[1]) : "")
        }
        let lines = parameters.keys.sorted().map { "\n\($0):\(parameters[$0, default: []].sorted().joined(separator: ","))" }
        return "/\(account)\(path)" + lines.joined()
    }
}
