// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

@Suite("The encodings inside service URLs: base64url, percent-escapes, hex, and the error messages")
struct EncodingContractTests {
    @Test("base64url writes - and _ and no padding, and reads text with or without padding")
    func base64url() {
        #expect(Base64URL.encode([UInt8]()) == "")
        #expect(Base64URL.encode([0xFB, 0xFF] as [UInt8]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("-_8=") == [0xFB, 0xFF])
        #expect(Base64URL.encode(Array("a.png".utf8)) == "YS5wbmc")
        #expect(Base64URL.decode("YS5wbmc") == Array("a.png".utf8) && Base64URL.decode("YS5wbmc=") == Array("a.png".utf8))
        for length in 1...12 {
            let bytes = (0..<length).map { UInt8(255 - $0 * 19) }
            let encoded = Base64URL.encode(bytes)
            #expect(encoded.count == (length * 4 + 2) / 3 && !encoded.contains("="), "\(length)")
            #expect(Base64URL.decode(encoded) == bytes, "\(length)")
        }
        #expect(Array("-_azAZ09".utf8).allSatisfy { $0.isBase64URL })
        #expect(!Array("+/=.:% ~".utf8).contains { $0.isBase64URL })
    }

    @Test("base64url refuses the standard alphabet, other characters and impossible lengths")
    func base64urlRefusals() {
        for bad in ["+/8=", "-_8+", "YS 5", "YS5wbmc\n", "YS.w", "YS5w%3D", "YS:w", "ÿÿÿÿ", "Y", "YS5wb", "abcdefghi"] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
    }

    @Test("multi-byte UTF-8 through base64url")
    func base64urlUnicode() {
        #expect(Base64URL.encode(Array("ü".utf8)) == "w7w")
        #expect(Base64URL.encode(Array("€".utf8)) == "4oKs")
        #expect(Base64URL.encode(Array("😀".utf8)) == "8J-YgA")
        #expect(Base64URL.decode("8J-YgA").map { String(decoding: $0, as: UTF8.self) } == "😀")
        #expect(Base64URL.encode(Array("Grüße: a/b.png".utf8)) == "R3LDvMOfZTogYS9iLnBuZw")
        #expect(Base64URL.decode("R3LDvMOfZTogYS9iLnBuZw==").map { String(decoding: $0, as: UTF8.self) } == "Grüße: a/b.png")
    }

    @Test("percent-decoding: escapes in either case, decoded once, UTF-8 only; + stays a plus")
    func percentDecoding() {
        #expect(PercentEncoding.decode("a%20b") == "a b")
        #expect(PercentEncoding.decode("%E2%82%AC%e2%82%ac") == "€€")
        #expect(PercentEncoding.decode("a+b") == "a+b")
        #expect(PercentEncoding.decode("") == "")
        #expect(PercentEncoding.decode("%25") == "%" && PercentEncoding.decode("%2541") == "%41")
        #expect(PercentEncoding.decode("ü%C3%BC") == "üü")
        for bad in ["%", "%2", "a%g0", "%0G", "%%41", "%C3", "%C3%28", "%FF", "%ED%A0%80", "%C0%AF"] {
            #expect(PercentEncoding.decode(bad) == nil, "\(bad)")
        }
    }

    @Test("plain sources are escaped so that ?, #, @, % and spaces never reach the path raw")
    func percentEncodingSources() {
        #expect(PercentEncoding.encodeSource("https://x.test/a-b_c.d~e/f") == "https://x.test/a-b_c.d~e/f")
        #expect(PercentEncoding.encodeSource("https://x.test/a b?c=d&e#f@2x%") == "https://x.test/a%20b%3Fc%3Dd%26e%23f%402x%25")
        #expect(PercentEncoding.encodeSource("ü€") == "%C3%BC%E2%82%AC")
        #expect(PercentEncoding.encodeSource("a+b;c,d") == "a%2Bb%3Bc%2Cd")
        for source in ["https://x.test/a b?c=d#e", "local:///ü/€/😀.png", "s3://bucket/100%/a@2x.png", "https://x.test/%41"] {
            #expect(PercentEncoding.decode(PercentEncoding.encodeSource(source)) == source, "\(source)")
        }
    }

    @Test("hex key text: either case, whole bytes only")
    func hex() {
        #expect(Hex.decode("")?.isEmpty == true)
        #expect(Hex.decode("736563726574") == Array("secret".utf8))
        #expect(Hex.decode("DEADbeef") == [0xDE, 0xAD, 0xBE, 0xEF])
        for bad in ["abc", "0x00", "0g", " 00", "00 ", "ü0", "-1"] {
            #expect(Hex.decode(bad) == nil, "\(bad)")
        }
    }

    @Test("each error reads as one line, the same as its localized description")
    func messages() {
        let cases: [(ServiceURLError, String)] = [
            (.malformedPath("no source URL"), "malformed URL path: no source URL"),
            (.unknownOption("wm"), "unknown processing option 'wm'"),
            (.invalidArgument(option: "w", reason: "-1 is negative"), "invalid argument for 'w': -1 is negative"),
            (.securityOptionNotAllowed("msr"), "the security option 'msr' is not allowed in URLs on this service"),
            (.unknownPreset("thumb"), "unknown preset 'thumb'"),
            (.invalidSource("bad"), "invalid source URL: bad"),
            (.invalidSignature, "invalid signature"),
            (.expired(at: 1_700_000_000), "the URL expired at 1700000000 (Unix time)")
        ]
        for (error, text) in cases {
            #expect(error.description == text)
            #expect(error.errorDescription == text)
            #expect(!text.contains("\n"))
        }
    }
}
