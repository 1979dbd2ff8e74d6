// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Testing

@testable import ImagoLoading

/// AWS Signature Version 4, checked against the worked examples of AWS's S3 documentation
/// ("Signature Calculations for the Authorization Header": GET Object with a range, PUT Object
/// with a key to escape, GET Bucket Lifecycle, GET Bucket list), which use the example key
/// AKIAIOSFODNN7EXAMPLE, the bucket examplebucket and 2013-05-24T00:00:00Z.
@Suite("AWS Signature V4: the S3 documentation's examples, canonical paths, queries and headers")
struct AWSSignatureV4Tests {
    static let signer = AWSSignatureV4(
        credentials: .init(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    static let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z

    static func header(_ name: String, in headers: [(name: String, value: String)]) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    static func signature(_ headers: [(name: String, value: String)]) -> String? {
        header("Authorization", in: headers)?.components(separatedBy: "Signature=").last
    }

    @Test("GET Object with Range: the canonical request, the string to sign and the signature of the documentation")
    func getObject() throws {
        let url = try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt"))
        let signed = Self.signer.sign(method: "GET", url: url, headers: [("Range", "bytes=0-9")], date: Self.date)
        let canonical = Self.signer.canonicalRequest(
            method: "GET", url: url, headers: signed.filter { $0.name != "Authorization" },
            payloadHash: AWSSignatureV4.emptyPayloadHash)
        #expect(
            canonical.text
                == "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
                + "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\nx-amz-date:20130524T000000Z\n\n"
                + "host;range;x-amz-content-sha256;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Self.signer.stringToSign(canonicalRequest: canonical.text, timestamp: "20130524T000000Z", scope: "20130524/us-east-1/s3/aws4_request")
                == "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
                + "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972")
        #expect(
            Self.header("Authorization", in: signed)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(Self.header("x-amz-date", in: signed) == "20130524T000000Z" && Self.header("host", in: signed) == "examplebucket.s3.amazonaws.com")
    }

    @Test("PUT Object with a key to escape, a Date header, a storage class and a signed body")
    func putObject() throws {
        let url = try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test%24file.text"))
        let body = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"  // SHA-256 of "Welcome to Amazon S3."
        let signed = Self.signer.sign(
            method: "PUT", url: url, headers: [("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
            payloadHash: body, date: Self.date)
        #expect(Self.signature(signed) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
        #expect(AWSSignatureV4.canonicalPath(of: url) == "/test%24file.text")
    }

    @Test("GET Bucket Lifecycle (a parameter without a value) and GET Bucket (parameters sorted)")
    func queries() throws {
        let lifecycle = Self.signer.sign(method: "GET", url: try #require(URL(string: "https://examplebucket.s3.amazonaws.com/?lifecycle")), date: Self.date)
        #expect(Self.signature(lifecycle) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        let list = Self.signer.sign(
            method: "GET", url: try #require(URL(string: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J")), date: Self.date)
        #expect(Self.signature(list) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test("encoding, sorting, trimming, ports, session tokens and timestamps follow AWS's rules")
    func rules() throws {
        #expect(AWSSignatureV4.encode("a b*(c)~-_./é", keepingSlash: false) == "a%20b%2A%28c%29~-_.%2F%C3%A9")
        #expect(AWSSignatureV4.encode("/photos/a b.jpg", keepingSlash: true) == "/photos/a%20b.jpg")
        let url = try #require(URL(string: "http://127.0.0.1:9000/bucket/dir/a%20b+c.jpg?b=2&a=%2F&a=1&flag"))
        #expect(AWSSignatureV4.canonicalPath(of: url) == "/bucket/dir/a%20b%2Bc.jpg")
        #expect(AWSSignatureV4.canonicalQuery(of: url) == "a=%2F&a=1&b=2&flag=")
        #expect(AWSSignatureV4.host(of: url) == "127.0.0.1:9000")
        #expect(AWSSignatureV4.host(of: try #require(URL(string: "https://s3.example:443/b"))) == "s3.example")
        #expect(AWSSignatureV4.canonicalPath(of: try #require(URL(string: "https://s3.example"))) == "/")
        var session = Self.signer
        session.credentials.sessionToken = "token/with=chars"
        let signed = session.sign(method: "GET", url: url, headers: [("If-None-Match", "  \"abc\"   \"def\" ")], date: Self.date)
        #expect(Self.header("x-amz-security-token", in: signed) == "token/with=chars")
        let auth = try #require(Self.header("Authorization", in: signed))
        #expect(auth.contains("SignedHeaders=host;if-none-match;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
        let canonical = session.canonicalRequest(
            method: "GET", url: url, headers: signed.filter { $0.name != "Authorization" },
            payloadHash: AWSSignatureV4.emptyPayloadHash)
        #expect(canonical.text.contains("\nif-none-match:\"abc\" \"def\"\n"))
        // Another second, day, leap day and century.
        #expect(AWSSignatureV4.timestamp(Date(timeIntervalSince1970: 951_782_400 + 3_723)) == ("20000229T010203Z", "20000229"))
        #expect(AWSSignatureV4.timestamp(Date(timeIntervalSince1970: 0)) == ("19700101T000000Z", "19700101"))
        #expect(AWSSignatureV4.timestamp(Date(timeIntervalSince1970: 4_102_444_799)) == ("20991231T235959Z", "20991231"))
    }
}
