// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// A configuration value that cannot be used: which variable, and why.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The variable (`IMAGO_…`) whose value is unusable.
    public var variable: String
    /// What is wrong with it.
    public var reason: String

    /// Creates an error for `variable`.
    public init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    /// `VARIABLE: reason`, in one line.
    public var description: String { "\(variable): \(reason)" }
}
