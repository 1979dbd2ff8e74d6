// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `localizedDescription`, `errorDescription` and `description` all give the same
/// one-line message, so the error reads the same in a log, a `print` or an alert.
extension ServiceError: LocalizedError {
    /// The same message as `description`.
    public var errorDescription: String? { description }
}
