// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Testing

@testable import ImagoServer

@Suite struct SourcePatternTests {
    @Test func prefixesAndStars() {
        let patterns = ["https://img.example.com", "https://*.cdn.example.net/public/", "http://127.0.0.1:*/img/"]
        #expect(SourcePattern.permits("https://img.example.com/a.jpg", patterns: patterns))
        #expect(!SourcePattern.permits("https://img.example.com.evil.net/a.jpg", patterns: patterns))
        #expect(SourcePattern.permits("https://eu.cdn.example.net/public/x/y.png", patterns: patterns))
        #expect(!SourcePattern.permits("https://eu.cdn.example.net/private/y.png", patterns: patterns))
        // A star stays within one segment: it cannot swallow a '/'.
        #expect(!SourcePattern.permits("https://evil.net/x.cdn.example.net/public/a.png", patterns: patterns))
        #expect(SourcePattern.permits("http://127.0.0.1:8080/img/a.png", patterns: patterns))
        #expect(!SourcePattern.permits("http://127.0.0.1:8080/other/img/a.png", patterns: patterns))
        #expect(SourcePattern.permits("anything", patterns: []))
    }
}
