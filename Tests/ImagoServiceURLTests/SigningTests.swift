// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

@Suite("URL signing: imgproxy's scheme")
struct SigningTests {
    let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    @Test("imgproxy's published vector signs to its published signature, with or without the leading slash")
    func publishedVector() throws {
        let signer = try URLSigner(keys: [.init(keyHex: key, saltHex: salt)])
        let path = "/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg"
        #expect(signer.signature(for: path) == "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc")
        #expect(signer.signature(for: String(path.dropFirst())) == "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc")
        #expect(signer.verify("m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc", for: path))
        #expect(!signer.verify("m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavd", for: path))
        #expect(!signer.verify("m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc", for: path + "x"))
        #expect(!signer.verify("not base64!", for: path) && !signer.verify("", for: path))
    }

    @Test("a truncated signature is the digest's first bytes; any of several key pairs verifies; the first signs")
    func truncationAndRotation() throws {
        let path = "/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg"
        let full = try URLSigner(keys: [.init(keyHex: key, saltHex: salt)])
        let short = try URLSigner(keys: [.init(keyHex: key, saltHex: salt)], signatureSize: 8)
        let truncated = short.signature(for: path)
        #expect(truncated.count == 11 && Base64URL.decode(truncated) == Array(Base64URL.decode(full.signature(for: path))!.prefix(8)))
        #expect(short.verify(truncated, for: path) && !short.verify(full.signature(for: path), for: path))
        let old = try URLSigner(keyList: "aabb", saltList: "ccdd")
        let rotated = try URLSigner(keyList: "0011, \(key)", saltList: "2233,\(salt)")
        #expect(rotated.verify(full.signature(for: path), for: path))
        #expect(!rotated.verify(old.signature(for: path), for: path))
        #expect(rotated.signature(for: path) == (try URLSigner(keyList: "0011", saltList: "2233")).signature(for: path))
    }

    @Test("bad key material is refused with a reason")
    func badKeys() {
        #expect(throws: ServiceURLError.self) { try URLSigner(keyList: "zz", saltList: "00") }
        #expect(throws: ServiceURLError.self) { try URLSigner(keyList: "00,11", saltList: "00") }
        #expect(throws: ServiceURLError.self) { try URLSigner(keys: []) }
        #expect(throws: ServiceURLError.self) { try URLSigner(keyList: "00", saltList: "00", signatureSize: 33) }
        #expect(throws: ServiceURLError.self) { try URLSigner(keyList: "abc", saltList: "00") }
    }

    @Test("base64url and hex helpers")
    func helpers() {
        #expect(Base64URL.encode(Array("http://x/?a=b".utf8)) == "aHR0cDovL3gvP2E9Yg")
        #expect(Base64URL.decode("aHR0cDovL3gvP2E9Yg").map { String(decoding: $0, as: UTF8.self) } == "http://x/?a=b")
        #expect(Base64URL.decode("aHR0cDovL3gvP2E9Yg==") != nil && Base64URL.decode("a+b/") == nil && Base64URL.decode("abcde") == nil)
        #expect(Hex.decode("00ffA0") == [0, 255, 160] && Hex.decode("0") == nil && Hex.decode("zz") == nil)
    }
}
