// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoLoading

/// Azure's Shared Key against Microsoft's "Authorize with Shared Key" article (its string to
/// sign and its canonicalized resources), the HMAC against OpenSSL's, and the requests the
/// `abs://` loader sends, as a loopback server receives them (no Azure server runs here).
@Suite("Azure Blob: Shared Key and abs:// sources")
struct AzureSharedKeyTests {
    /// Azurite's published development account key (not a secret).
    static let key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

    /// HMAC-SHA256 of `text` under the base64 key, base64, by OpenSSL.
    static func openssl(_ text: String, key: String) async throws -> String {
        let hexKey = try #require(Data(base64Encoded: key)).map { String(format: "%02x", $0) }.joined()
        let dir = try TestFiles.temporaryDirectory()
        let file = dir.appendingPathComponent("string-to-sign")
        try Data(text.utf8).write(to: file)
        let (status, out, err) = try await Subprocess.run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "openssl dgst -sha256 -mac HMAC -macopt hexkey:\(hexKey) -binary \"$1\" | base64", "sh", file.path])
        #expect(status == 0, "\(err)")
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("the article's string to sign: Get Container Metadata with x-ms-date and x-ms-version, empty standard headers")
    func documentedStringToSign() throws {
        let signer = try #require(AzureSharedKey(account: "myaccount", key: Self.key))
        let url = try #require(URL(string: "https://myaccount.blob.core.windows.net/mycontainer?restype=container&comp=metadata&timeout=20"))
        let text = signer.stringToSign(
            method: "GET", url: url, headers: [("x-ms-date", "Fri, 26 Jun 2015 23:39:12 GMT"), ("x-ms-version", "2015-02-21")])
        #expect(
            text
                == "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:Fri, 26 Jun 2015 23:39:12 GMT\nx-ms-version:2015-02-21\n/myaccount/mycontainer\ncomp:metadata\nrestype:container\ntimeout:20"
        )
    }

    @Test("the article's canonicalized resources: parameters sorted, repeated values sorted and joined, secondary hosts")
    func documentedResources() throws {
        let signer = try #require(AzureSharedKey(account: "myaccount", key: Self.key))
        let cases = [
            ("http://myaccount.blob.core.windows.net/mycontainer?restype=container&comp=metadata", "/myaccount/mycontainer\ncomp:metadata\nrestype:container"),
            (
                "http://myaccount.blob.core.windows.net/container?restype=container&comp=list&include=snapshots&include=metadata&include=uncommittedblobs",
                "/myaccount/container\ncomp:list\ninclude:metadata,snapshots,uncommittedblobs\nrestype:container"
            ),
            ("https://myaccount-secondary.blob.core.windows.net/mycontainer/myblob", "/myaccount/mycontainer/myblob")
        ]
        for (url, resource) in cases {
            #expect(signer.canonicalizedResource(of: try #require(URL(string: url))) == resource, "\(url)")
        }
    }

    @Test("the standard headers in their places; Content-Length 0 is empty; the signature is OpenSSL's HMAC of the string")
    func signature() async throws {
        let signer = try #require(AzureSharedKey(account: "devstoreaccount1", key: Self.key))
        let url = try #require(URL(string: "http://127.0.0.1:10000/devstoreaccount1/photos/a%20b.jpg"))
        let date = Date(timeIntervalSince1970: 1_435_361_952)  // Fri, 26 Jun 2015 23:39:12 GMT
        let headers = signer.sign(
            method: "get", url: url,
            headers: [("If-None-Match", "\"0x8D\""), ("Range", "bytes=0-99"), ("Content-Length", "0"), ("If-Modified-Since", "Sat, 01 Jan 2000 00:00:00 GMT")],
            date: date)
        let fields = Dictionary(headers.map { ($0.name.lowercased(), $0.value) }) { a, _ in a }
        #expect(fields["x-ms-date"] == "Fri, 26 Jun 2015 23:39:12 GMT" && fields["x-ms-version"] == AzureSharedKey.version)
        let text = signer.stringToSign(method: "GET", url: url, headers: headers.filter { $0.name != "Authorization" })
        #expect(
            text
                == "GET\n\n\n\n\n\n\nSat, 01 Jan 2000 00:00:00 GMT\n\n\"0x8D\"\n\nbytes=0-99\nx-ms-date:Fri, 26 Jun 2015 23:39:12 GMT\nx-ms-version:\(AzureSharedKey.version)\n/devstoreaccount1/devstoreaccount1/photos/a%20b.jpg"
        )
        #expect(fields["authorization"] == "SharedKey devstoreaccount1:" + (try await Self.openssl(text, key: Self.key)))
        #expect(AzureSharedKey(account: "a", key: "not base64!") == nil)
    }

    @Test("HTTP dates as Azure and HTTP want them")
    func httpDates() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1_795_732_137.9)) == "Thu, 26 Nov 2026 22:28:57 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400))) == Date(timeIntervalSince1970: 951_782_400))
    }

    @Test("abs://: the blob's URL under the endpoint, a signed GET that verifies, the reply as the abs:// URL's")
    func loaderRequests() async throws {
        let server = try await TestHTTPServer.start()
        let data = Data((0..<4000).map { UInt8($0 % 251) })
        server.register("a.png", data: data)
        let loader = try #require(AzureBlobDataLoader(account: "devstoreaccount1", key: Self.key, endpoint: server.url("")))
        #expect(AzureBlobDataLoader(account: "x", key: "%%%") == nil)
        #expect(AzureBlobDataLoader(account: "acct", key: nil)?.endpoint.absoluteString == "https://acct.blob.core.windows.net")
        let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
        let url = try #require(URL(string: "abs://img/a.png"))
        let result = try await downloader.download(ImageDownloadRequest(url: url))
        #expect(result.data == data && result.response?.url == url)
        let seen = try #require(server.headers("/img/a.png"))
        let signer = try #require(AzureSharedKey(account: "devstoreaccount1", key: Self.key))
        let text = signer.stringToSign(
            method: "GET", url: server.url("/img/a.png"), headers: seen.filter { $0.key != "authorization" }.map { ($0.key, $0.value) })
        #expect(seen["authorization"] == "SharedKey devstoreaccount1:" + (try await Self.openssl(text, key: Self.key)))
        await #expect(throws: ImageLoadingError.invalidURL("abs://img/")) {
            _ = try await downloader.download(ImageDownloadRequest(url: URL(string: "abs://img/")!))
        }
        await server.stop()
    }
}
