// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Bytes received so far, and how many were announced.
public struct ImageDownloadProgress: Sendable, Hashable {
    /// Bytes received.
    public var receivedBytes: Int
    /// The `Content-Length`, when the server sent one.
    public var expectedBytes: Int?

    /// Creates a progress value.
    public init(receivedBytes: Int, expectedBytes: Int?) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
    }

    /// Received over expected, 0…1, or `nil` without an expected size.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}
