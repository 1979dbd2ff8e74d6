// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCore
import Testing

@testable import ImagoLoading

@Suite("ImageLoadingError: one mapping, clear messages, the failed-URL rule")
struct ErrorTests {
    @Test("any error maps once to the case that names it")
    func mapping() {
        #expect(ImageLoadingError(CancellationError()) == .cancelled)
        #expect(ImageLoadingError(ImageLoadingError.emptyBody) == .emptyBody)
        #expect(ImageLoadingError(ImageCodingError.truncated(.png, "x")) == .decodingFailed(.truncated(.png, "x")))
        #expect(ImageLoadingError(DiskCacheError.database("locked")) == .cacheFailed(.database("locked")))
        // An error of no known kind is not passed off as a connection failure worth retrying.
        struct Odd: Error {}
        let odd = ImageLoadingError(Odd())
        if case .unexpected(let m) = odd { #expect(m.contains("Odd") && !odd.isTransient) } else { Issue.record("\(odd)") }
    }

    @Test("transient failures are the ones worth retrying; the failed-URL list blocks only lasting failures of the URL")
    func transienceAndBlocking() {
        let transient: [ImageLoadingError] = [
            .timedOut(.read), .cancelled, .connectionFailed("reset", transient: true),
            .unacceptableStatusCode(503), .unacceptableStatusCode(429),
            .unacceptableStatusCode(408), .truncatedBody(received: 1, expected: 2)
        ]
        let lasting: [ImageLoadingError] = [
            .unacceptableStatusCode(404), .invalidURL("x"), .decodingFailed(.emptyData),
            .connectionFailed("TLS", transient: false), .bodyTooLarge(limit: 1, declared: 2),
            .invalidResponse("x"), .decompressionLimit(ratio: 50)
        ]
        for e in transient { #expect(e.isTransient && !FailedURLList.blocks(e), "\(e)") }
        for e in lasting { #expect(!e.isTransient && FailedURLList.blocks(e), "\(e)") }
        for e: ImageLoadingError in [
            .notCached, .blockedFailedURL("x"), .rejected("x"), .cacheFailed(.store("x")),
            .processingFailed(transformer: "t", underlying: .invalidArgument("r")), .encodingFailed(.emptyData),
            .unexpected("x")
        ] {
            #expect(!FailedURLList.blocks(e), "\(e)")
        }
    }

    @Test("every case describes itself in one line that names the cause")
    func descriptions() {
        let all: [ImageLoadingError] = [
            .invalidURL("u"), .unsupportedScheme("gopher"), .unacceptableStatusCode(404),
            .unacceptableContentType("text/html"), .unacceptableContentType(nil), .bodyTooLarge(limit: 1, declared: 2),
            .bodyTooLarge(limit: 1, declared: nil), .decompressionLimit(ratio: 50), .invalidContentEncoding("gzip"),
            .invalidResponse("x"), .truncatedBody(received: 1, expected: 2), .emptyBody, .timedOut(.connect),
            .tooManyRedirects(limit: 3), .redirectLoop("u"), .connectionFailed("refused", transient: true),
            .notModifiedWithoutCachedData, .notCached, .blockedFailedURL("u"), .fileUnreadable("f"), .malformedDataURL,
            .decodingFailed(.corrupt(.webp, "bad")), .processingFailed(transformer: "Blur(2)", underlying: .invalidArgument("r")),
            .encodingFailed(.encoderUnavailable(.heic)), .cacheFailed(.io(path: "/c", reason: "full")), .rejected("no"), .cancelled,
            .unexpected("odd")
        ]
        let texts = all.map(\.description)
        #expect(Set(texts).count == all.count)
        #expect(texts.allSatisfy { !$0.isEmpty && !$0.contains("\n") })
        #expect(ImageLoadingError.decodingFailed(.corrupt(.webp, "bad")).description.contains("webp"))
        #expect(ImageLoadingError.processingFailed(transformer: "Blur(2)", underlying: .invalidArgument("r")).description.contains("Blur(2)"))
    }
}
