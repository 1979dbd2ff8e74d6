// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ProcessingOptions {
    /// Preset definitions read as imgproxy reads `IMGPROXY_PRESETS` (one definition per entry):
    /// `name=option/option`, trimmed; blank entries and `#` comments are skipped; the name and
    /// the options must not be empty, there is one `=`, and every option has its `:`.
    ///
    /// - Parameters:
    ///   - definitions: The entries, one preset each.
    ///   - argumentSeparator: What separates an option's name and arguments (imgproxy's
    ///     `IMGPROXY_ARGUMENTS_SEPARATOR`). Default `:`.
    /// - Throws: ``ServiceURLError/invalidArgument(option:reason:)`` (option `preset`) naming the
    ///   entry and what is wrong with it.
    public static func presets(parsing definitions: [String], argumentSeparator: String = ":") throws(ServiceURLError) -> [String: [String]] {
        var presets: [String: [String]] = [:]
        for raw in definitions {
            let line = raw.trimmingWhitespace
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .invalidArgument(option: "preset", reason: "'\(line)' is not name=options") }
            let name = String(parts[0]).trimmingWhitespace, value = String(parts[1]).trimmingWhitespace
            guard !name.isEmpty else { throw .invalidArgument(option: "preset", reason: "'\(line)' has no name") }
            guard !value.isEmpty else { throw .invalidArgument(option: "preset", reason: "preset '\(name)' has no options") }
            let segments = value.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            for segment in segments where !segment.contains(argumentSeparator) {
                throw .invalidArgument(option: "preset", reason: "'\(segment)' in preset '\(name)' is not an option")
            }
            presets[name] = segments
        }
        return presets
    }

    /// Applies every preset once, as imgproxy does at start, so a bad option in a preset stops
    /// the service's start instead of failing each request that uses it.
    ///
    /// - Throws: the first preset's error, as
    ///   ``init(parsing:presets:allowSecurityOptions:startingFrom:argumentSeparator:)`` throws it.
    public static func validate(
        presets: [String: [String]], allowSecurityOptions: Bool = true, argumentSeparator: String = ":"
    ) throws(ServiceURLError) {
        for name in presets.keys.sorted() {
            var options = ProcessingOptions()
            try options.apply(
                ["preset" + argumentSeparator + name], presets: presets, allowSecurityOptions: allowSecurityOptions,
                argumentSeparator: argumentSeparator)
        }
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks.
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
