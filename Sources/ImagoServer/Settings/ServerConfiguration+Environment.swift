// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ServerConfiguration {
    /// Every setting of the service, in the order they are read and listed. Some read after
    /// others on purpose: `IMAGO_PRESETS` after `IMAGO_ALLOW_SECURITY_OPTIONS` (the presets are
    /// checked with it), `IMAGO_FORMAT_QUALITY` after `IMAGO_QUALITY_MAPPING`, and
    /// `IMAGO_RESULT_STORAGE` after the stores whose settings it takes.
    package static let settings: [Setting<ServerConfiguration>] =
        serviceSettings + sourceSettings + objectStoreSettings + requestSettings + outputSettings + drawingSettings + isolationSettings

    /// The defaults, overridden by the `IMAGO_*` variables present in `environment`, and by the
    /// `IMGPROXY_*` ones with an equivalent (`imgproxyEquivalents`; an `IMAGO_` one wins).
    ///
    /// - Throws: ``ConfigurationError`` naming the variable and what is wrong with its value, an
    ///   imgproxy security setting without an equivalent, or a misspelt `IMAGO_` setting.
    public init(environment: [String: String]) throws(ConfigurationError) {
        self.init()
        let (migrated, warnings) = try Self.migrate(environment)
        try apply(migrated)
        self.warnings = warnings
    }

    /// Overrides settings from `IMAGO_*` variables (or flags given under the same names), then
    /// checks the settings that depend on each other.
    ///
    /// - Throws: ``ConfigurationError`` naming the variable.
    public mutating func apply(_ environment: [String: String]) throws(ConfigurationError) {
        let env = EnvironmentReader(values: environment)
        for setting in Self.settings { try setting.read(env, &self) }
        try validate()
    }

    /// Reads only the settings named in `names`, from `environment` with imgproxy's names too:
    /// for commands that need a few of them (`imago-server sign`) and must not fail on the others.
    ///
    /// - Throws: ``ConfigurationError`` naming the variable.
    package static func reading(_ names: Set<String>, from environment: [String: String]) throws(ConfigurationError) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        let (migrated, _) = try migrate(
            environment.filter { name, _ in names.contains(name) || equivalent(of: name).map(names.contains) == true }, alsoKnown: [])
        let env = EnvironmentReader(values: migrated)
        for setting in settings where names.contains(setting.name) { try setting.read(env, &configuration) }
        return configuration
    }

    /// Checks what one setting alone cannot: lifetimes in order, the local root present, shared
    /// results behind a local result cache.
    ///
    /// - Throws: ``ConfigurationError`` naming the variable to change.
    func validate() throws(ConfigurationError) {
        guard cache.sourceTTLMin <= cache.sourceTTLMax else {
            throw ConfigurationError(variable: "IMAGO_SOURCE_TTL_MIN", reason: "it is longer than IMAGO_SOURCE_TTL_MAX")
        }
        if let root = sources.localRoot {
            // Checked at start: a root that is not there would refuse every local source.
            let type = (try? FileManager.default.attributesOfItem(atPath: root))?[.type] as? FileAttributeType
            guard type == .typeDirectory else {
                throw ConfigurationError(variable: "IMAGO_LOCAL_ROOT", reason: "'\(root)' is not a folder")
            }
        }
        if cache.resultStorage != nil, cache.resultCacheSize == 0 {
            throw ConfigurationError(
                variable: "IMAGO_RESULT_STORAGE", reason: "shared results sit behind the local result cache: IMAGO_RESULT_CACHE_SIZE must not be 0")
        }
    }
}
