// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where an ``S3DataLoader`` finds its buckets and with which key it signs.
///
/// Without an ``endpoint`` the buckets are Amazon S3's, at `https://s3.REGION.amazonaws.com`,
/// addressed virtual-hosted style (`https://BUCKET.s3.REGION.amazonaws.com/KEY`) unless the
/// bucket's name cannot be a host name (dots, capitals), as the AWS SDKs do. With one (MinIO,
/// Ceph, OpenStack Swift's `s3api`, Google Cloud Storage's `https://storage.googleapis.com`,
/// Cloudflare R2), ``usesPathStyle`` chooses `ENDPOINT/BUCKET/KEY` (the default, imgproxy's) or
/// `BUCKET.ENDPOINT-HOST/KEY`.
public struct S3Settings: Sendable, Hashable {
    /// The region of the signature's scope and of Amazon's endpoint. Default `us-west-1`,
    /// imgproxy's when neither its setting nor the AWS environment names one.
    public var region: String
    /// The store's base URL (`http(s)://host[:port]`); `nil` (default) for Amazon S3.
    public var endpoint: URL?
    /// With an ``endpoint``: the bucket in the path (`true`, default) or in the host name.
    public var usesPathStyle: Bool
    /// The key requests are signed with; `nil` (default) sends them unsigned, which public
    /// buckets answer.
    public var credentials: AWSSignatureV4.Credentials?

    /// Settings from their parts; every parameter defaults as documented on its property.
    public init(
        region: String = "us-west-1", endpoint: URL? = nil, usesPathStyle: Bool = true,
        credentials: AWSSignatureV4.Credentials? = nil
    ) {
        self.region = region
        self.endpoint = endpoint
        self.usesPathStyle = usesPathStyle
        self.credentials = credentials
    }

    /// The HTTP URL of object `key` in `bucket` (`versionID` as `?versionId=`); `nil` when
    /// the bucket or the key is empty, or the endpoint has no host.
    package func objectURL(bucket: String, key: String, versionID: String? = nil) -> URL? {
        guard !key.isEmpty else { return nil }
        let query = versionID.map { "versionId=" + AWSSignatureV4.encode($0, keepingSlash: false) }
        return url(bucket: bucket, path: "/" + AWSSignatureV4.encode(key, keepingSlash: true), query: query)
    }

    /// The URL of `bucket` with `path` (percent-encoded, `/` or starting with one) and `query`
    /// (encoded); `nil` when the bucket is empty or the endpoint has no host.
    func url(bucket: String, path: String, query: String? = nil) -> URL? {
        guard !bucket.isEmpty else { return nil }
        let query = query.map { "?" + $0 } ?? ""
        let bucketPart = AWSSignatureV4.encode(bucket, keepingSlash: false)
        guard let endpoint else {
            if Self.isHostCompatible(bucket) {
                return URL(string: "https://\(bucket).s3.\(region).amazonaws.com\(path)\(query)")
            }
            return URL(string: "https://s3.\(region).amazonaws.com/\(bucketPart)\(path)\(query)")
        }
        guard let host = endpoint.host, !host.isEmpty else { return nil }
        let scheme = endpoint.scheme?.lowercased() ?? "https"
        let port = endpoint.port.map { ":\($0)" } ?? ""
        var base = endpoint.path
        while base.hasSuffix("/") { base.removeLast() }
        if usesPathStyle || !Self.isHostCompatible(bucket) {
            return URL(string: "\(scheme)://\(host)\(port)\(base)/\(bucketPart)\(path)\(query)")
        }
        return URL(string: "\(scheme)://\(bucket).\(host)\(port)\(base)\(path)\(query)")
    }

    /// Whether `bucket` can be the first label of a host name over TLS: 3-63 lowercase letters,
    /// digits and hyphens, starting and ending with a letter or digit (a dot would break the
    /// certificate's wildcard).
    static func isHostCompatible(_ bucket: String) -> Bool {
        let bytes = Array(bucket.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        func alnum(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) }
        guard let first = bytes.first, let last = bytes.last, alnum(first), alnum(last) else { return false }
        return bytes.allSatisfy { alnum($0) || $0 == UInt8(ascii: "-") }
    }
}
