// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

@testable import ImagoServiceURL

/// Parses `/`-separated option segments (`"rs:fill:300/g:sm"`) as a URL's options. Empty
/// segments are dropped, as a path split by `/` gives none.
func parsedOptions(
    _ text: String, presets: [String: [String]] = [:],
    security: Bool = false
) throws(ServiceURLError) -> ProcessingOptions {
    try ProcessingOptions(
        parsing: text.split(separator: "/").map(String.init), presets: presets,
        allowSecurityOptions: security)
}

/// The name an option segment gives its option: everything before the first `:`.
func optionName(_ segment: String) -> String {
    String(segment.prefix { $0 != ":" })
}

extension ServiceURLError {
    /// The case, without its payload, for checks that should not depend on a message's words.
    var caseName: String {
        switch self {
        case .malformedPath: return "malformedPath"
        case .unknownOption: return "unknownOption"
        case .forbiddenOption: return "forbiddenOption"
        case .invalidArgument: return "invalidArgument"
        case .securityOptionNotAllowed: return "securityOptionNotAllowed"
        case .unknownPreset: return "unknownPreset"
        case .invalidSource: return "invalidSource"
        case .invalidSignature: return "invalidSignature"
        case .expired: return "expired"
        }
    }

    /// The option an `invalidArgument` error names; `nil` for every other case.
    var argumentOption: String? {
        if case .invalidArgument(let option, _) = self { return option }
        return nil
    }
}
