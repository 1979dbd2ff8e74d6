// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

/// Expected signatures not printed by imgproxy were computed independently, with Python's
/// `hmac.new(key, salt + path, hashlib.sha256)` and `base64.urlsafe_b64encode(...).rstrip(b"=")`.
@Suite("URL signatures: imgproxy's vectors and the verification rules")
struct SignerContractTests {
    /// imgproxy's "Signing a URL" example (docs.imgproxy.net): key `secret`, salt `hello`.
    static let docsKey = "736563726574"
    static let docsSalt = "68656c6c6f"
    static let docsPath = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    static let docsSignature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"

    /// imgproxy's unit-test pairs (security/signature_test.go): `test-key`/`test-salt`, `test-key2`/`test-salt2`.
    static let testKey = "746573742d6b6579", testSalt = "746573742d73616c74"
    static let testKey2 = "746573742d6b657932", testSalt2 = "746573742d73616c7432"

    @Test("imgproxy's documented example signs to its documented signature, however the key is given")
    func documentedExample() throws {
        let signer = try URLSigner(keyList: Self.docsKey, saltList: Self.docsSalt)
        #expect(signer.signature(for: Self.docsPath) == Self.docsSignature)
        let upper = try URLSigner(keys: [.init(keyHex: Self.docsKey.uppercased(), saltHex: "68656C6C6F")])
        #expect(upper.signature(for: Self.docsPath) == Self.docsSignature)
        let raw = try URLSigner(keys: [.init(key: Array("secret".utf8), salt: Array("hello".utf8))])
        #expect(raw.signature(for: Self.docsPath) == Self.docsSignature)
        let spaced = try URLSigner(keyList: " \(Self.docsKey)\t", saltList: "\n\(Self.docsSalt) ")
        #expect(spaced.signature(for: Self.docsPath) == Self.docsSignature)
        #expect(signer.keys == [.init(key: Array("secret".utf8), salt: Array("hello".utf8))] && signer.signatureSize == 32)
    }

    @Test("the documented URL parses into its parts, and its signature verifies over the signed part")
    func documentedURL() throws {
        let signer = try URLSigner(keyList: Self.docsKey, saltList: Self.docsSalt)
        let path = try ServicePath(parsing: "/" + Self.docsSignature + Self.docsPath)
        #expect(path.signature == Self.docsSignature && path.signedPath == Self.docsPath && !path.isInfo)
        #expect(path.options == ["rs:fill:300:400:0", "g:sm"])
        #expect(path.source == "http://example.com/images/curiosity.jpg" && path.extensionName == "png")
        #expect(signer.verify(path.signature, for: path.signedPath))
        let options = try ProcessingOptions(parsing: path.options)
        #expect(options.resizingType == .fill && options.width == 300 && options.height == 400)
        #expect(!options.enlarge && options.gravity == .init(.smart))
    }

    @Test("other paths and pairs: each signature is the HMAC of salt and path")
    func computedVectors() throws {
        let docs = try URLSigner(keyList: Self.docsKey, saltList: Self.docsSalt)
        #expect(
            docs.signature(for: "/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg")
                == "vZ6TInXHD_gdx-w5FK0bcxhSYxKd-2GkBizoDIGgzSU")
        #expect(docs.signature(for: "/plain/http://x.test/a.png") == "BbmX5PCyWX7e8IGotANj66-1OoqXttjOrMKB-HH3D6I")
        let unsalted = try URLSigner(keys: [.init(keyHex: Self.docsKey, saltHex: "")])
        #expect(unsalted.keys.first?.salt.isEmpty == true)
        #expect(unsalted.signature(for: Self.docsPath) == "tS25ndi-GOuUN5j8KMTguVNiZEabilYD5DTl2zop7ZY")
        let test = try URLSigner(keyList: Self.testKey, saltList: Self.testSalt)
        #expect(test.signature(for: "/asd") == "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20")
        #expect(test.signature(for: "/qwe") == "rjclBdhgmGYl1xhJXF2Jvq0LVdvnT3KH7H8JBpQKHgY")
    }

    @Test("a path without its leading slash is signed as if it had one")
    func leadingSlash() throws {
        let test = try URLSigner(keyList: Self.testKey, saltList: Self.testSalt)
        #expect(test.signature(for: "asd") == test.signature(for: "/asd"))
        #expect(test.verify("oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", for: "asd"))
        // imgproxy's own unit vector signs the bare bytes "asd"; Imago documents the added slash instead.
        #expect(!test.verify("dtLwhdnPPiu_epMl1LrzheLpvHas-4mwvY6L3Z8WwlY", for: "asd"))
    }

    @Test("a truncated signature is the digest's first bytes, and only that length verifies", arguments: [1, 2, 8, 16, 31, 32])
    func truncation(size: Int) throws {
        let full = try URLSigner(keyList: Self.docsKey, saltList: Self.docsSalt)
        let short = try URLSigner(keyList: Self.docsKey, saltList: Self.docsSalt, signatureSize: size)
        let digest = try #require(Base64URL.decode(Self.docsSignature))
        let signature = short.signature(for: Self.docsPath)
        #expect(short.signatureSize == size)
        #expect(Base64URL.decode(signature) == Array(digest.prefix(size)))
        #expect(signature.count == (size * 4 + 2) / 3 && !signature.contains("="))
        #expect(short.verify(signature, for: Self.docsPath))
        #expect(full.verify(signature, for: Self.docsPath) == (size == 32))
        #expect(short.verify(Self.docsSignature, for: Self.docsPath) == (size == 32))
    }

    @Test("known truncated signatures")
    func truncatedVectors() throws {
        #expect(try URLSigner(keyList: Self.docsKey, saltList: Self.docsSalt, signatureSize: 8).signature(for: Self.docsPath) == "oKfUtW34Dvo")
        #expect(try URLSigner(keyList: Self.docsKey, saltList: Self.docsSalt, signatureSize: 1).signature(for: Self.docsPath) == "oA")
        #expect(try URLSigner(keyList: Self.testKey, saltList: Self.testSalt, signatureSize: 8).signature(for: "/asd") == "oWaL7QoW5Ts")
    }

    @Test("with several pairs the first signs and a signature made with any of them verifies")
    func severalPairs() throws {
        let both = try URLSigner(keyList: "\(Self.testKey),\(Self.testKey2)", saltList: "\(Self.testSalt),\(Self.testSalt2)")
        #expect(both.keys.count == 2)
        #expect(both.signature(for: "/asd") == "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20")
        #expect(both.verify("oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", for: "/asd"))
        #expect(both.verify("jYz1UZ7j1BCdSzH3pZhaYf0iuz0vusoOTdqJsUT6WXI", for: "/asd"))
        #expect(!both.verify("jYz1UZ7j1BCdSzH3pZhaYf0iuz0vusoOTdqJsUT6WXI", for: "/qwe"))
        // The second pair alone signs what the two verify.
        let second = try URLSigner(keyList: Self.testKey2, saltList: Self.testSalt2)
        #expect(second.signature(for: "/asd") == "jYz1UZ7j1BCdSzH3pZhaYf0iuz0vusoOTdqJsUT6WXI")
        // A key with another pair's salt is not a pair.
        let crossed = try URLSigner(keyList: "\(Self.testKey),\(Self.testKey2)", saltList: "\(Self.testSalt2),\(Self.testSalt)")
        #expect(!crossed.verify("oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", for: "/asd"))
        #expect(!crossed.verify("jYz1UZ7j1BCdSzH3pZhaYf0iuz0vusoOTdqJsUT6WXI", for: "/asd"))
        let short = try URLSigner(
            keyList: "\(Self.testKey),\(Self.testKey2)", saltList: "\(Self.testSalt),\(Self.testSalt2)",
            signatureSize: 8)
        #expect(short.verify("oWaL7QoW5Ts", for: "/asd") && short.verify("jYz1UZ7j1BA", for: "/asd"))
        #expect(!short.verify("oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", for: "/asd"))
    }

    @Test("near misses are refused: any one character, padding, spare bits, case, another alphabet, a prefix")
    func nearMisses() throws {
        let signer = try URLSigner(keyList: Self.docsKey, saltList: Self.docsSalt)
        let good = Self.docsSignature
        let characters = Array(good)
        for i in characters.indices {
            var changed = characters
            changed[i] = changed[i] == "A" ? "B" : "A"
            #expect(!signer.verify(String(changed), for: Self.docsPath), "position \(i)")
        }
        // The last character's two low bits are spare: a decoder ignores them, verification does not.
        #expect(!signer.verify(String(good.dropLast()) + "9", for: Self.docsPath))
        #expect(!signer.verify(good + "=", for: Self.docsPath))
        #expect(!signer.verify(good.uppercased(), for: Self.docsPath))
        #expect(!signer.verify(good.replacingOccurrences(of: "_", with: "/"), for: Self.docsPath))
        #expect(!signer.verify(String(good.dropLast()), for: Self.docsPath))
        #expect(!signer.verify(good + "A", for: Self.docsPath))
        #expect(!signer.verify("ü" + String(good.dropFirst()), for: Self.docsPath))
        #expect(!signer.verify(good, for: Self.docsPath + "?x=1") && !signer.verify(good, for: "/info" + Self.docsPath))
    }

    @Test("key material: hex of either case, whole bytes, a non-empty key, matching lists, a size from 1 to 32")
    func keyMaterial() throws {
        #expect(try URLSigner.KeyPair(keyHex: "00fF", saltHex: "A0").key == [0, 255])
        #expect(try URLSigner.KeyPair(keyHex: "00", saltHex: "").salt.isEmpty)
        let notHexKey = ServiceURLError.invalidArgument(option: "key", reason: "not hex")
        let notHexSalt = ServiceURLError.invalidArgument(option: "salt", reason: "not hex")
        for key in ["", "abc", "0x00", "zz", "00 11", "é0"] {
            #expect(throws: notHexKey, "\(key)") { try URLSigner.KeyPair(keyHex: key, saltHex: "00") }
        }
        for salt in ["0", "0x00", "gg"] {
            #expect(throws: notHexSalt, "\(salt)") { try URLSigner.KeyPair(keyHex: "00", saltHex: salt) }
        }
        #expect(throws: notHexKey) { try URLSigner(keyList: "0011,zz", saltList: "00,11") }
        #expect(throws: ServiceURLError.invalidArgument(option: "key", reason: "no key given")) { try URLSigner(keys: []) }
        #expect(throws: ServiceURLError.invalidArgument(option: "key", reason: "2 keys but 1 salts")) {
            try URLSigner(keyList: "00,11", saltList: "22")
        }
        #expect(throws: ServiceURLError.invalidArgument(option: "key", reason: "1 keys but 0 salts")) {
            try URLSigner(keyList: "00", saltList: "")
        }
        for size in [0, -1, 33] {
            #expect(throws: ServiceURLError.invalidArgument(option: "signature size", reason: "\(size) is not 1-32")) {
                try URLSigner(keyList: "00", saltList: "00", signatureSize: size)
            }
        }
    }
}
