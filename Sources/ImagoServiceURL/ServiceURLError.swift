// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Why a service URL was refused. Each case maps to one HTTP status in the service.
public enum ServiceURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path is not `/{signature}/{options}/{source}`: the message says what is missing.
    case malformedPath(String)
    /// An option the service does not know, by the name given.
    case unknownOption(String)
    /// An option's argument is out of range or of the wrong kind.
    case invalidArgument(option: String, reason: String)
    /// An option the service's `IMAGO_ALLOWED_PROCESSING_OPTIONS` does not list, by the name given.
    case forbiddenOption(String)
    /// A security option (`max_src_resolution` and the like) in a URL, without
    /// `IMAGO_ALLOW_SECURITY_OPTIONS`.
    case securityOptionNotAllowed(String)
    /// A preset the service does not have.
    case unknownPreset(String)
    /// The source is not a valid URL, or not base64url.
    case invalidSource(String)
    /// The signature is missing or does not match any key.
    case invalidSignature
    /// The URL's `expires` time has passed.
    case expired(at: Int64)

    /// The error's message, in one line.
    public var description: String {
        switch self {
        case .malformedPath(let m): "malformed URL path: \(m)"
        case .unknownOption(let name): "unknown processing option '\(name)'"
        case .forbiddenOption(let name): "the processing option '\(name)' is not allowed on this service"
        case .invalidArgument(let option, let reason): "invalid argument for '\(option)': \(reason)"
        case .securityOptionNotAllowed(let name): "the security option '\(name)' is not allowed in URLs on this service"
        case .unknownPreset(let name): "unknown preset '\(name)'"
        case .invalidSource(let m): "invalid source URL: \(m)"
        case .invalidSignature: "invalid signature"
        case .expired(let t): "the URL expired at \(t) (Unix time)"
        }
    }
}
