// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ServerConfiguration {
    /// imgproxy's settings that have an equivalent here, by imgproxy's name: the Imago setting
    /// they set, with the same meaning and value (from the settings' descriptors). An `IMAGO_`
    /// setting given too wins.
    package static var imgproxyEquivalents: [String: String] {
        Dictionary(uniqueKeysWithValues: settings.flatMap { setting in setting.imgproxyNames.map { ($0, setting.name) } })
    }

    /// The `IMAGO_` setting an imgproxy setting stands for, if any.
    static func equivalent(of imgproxyName: String) -> String? {
        settings.first { $0.imgproxyNames.contains(imgproxyName) }?.name
    }

    /// Words in an imgproxy setting's name that make it a security setting: one of them without
    /// an equivalent here stops the start, since running without it would be less safe than the
    /// operator asked.
    static let securityWords = ["KEY", "SALT", "SECRET", "ALLOWED", "DENIED", "TRUSTED", "SIGNATURE", "PASSWORD", "TOKEN", "CERT"]

    /// imgproxy's integrations with error trackers and telemetry services, whose keys and
    /// certificates are the service's credentials there, not the server's safety: without an
    /// equivalent they are named in a warning, not a reason to stop.
    static let reportingPrefixes = ["NEW_RELIC_", "BUGSNAG_", "HONEYBADGER_", "AIRBRAKE_", "SENTRY_", "DATADOG_", "OPEN_TELEMETRY_"]

    /// imgproxy reads more settings from a file or a secret store these name
    /// (`IMGPROXY_ENV_LOCAL_FILE_PATH`, `IMGPROXY_ENV_AWS_SSM_PARAMETERS_PATH`, …). Imago does
    /// not, and the key and salt may be among them: the start stops rather than run unsigned.
    static let settingsLoaderPrefix = "ENV_"

    /// Every `IMAGO_` setting of the service.
    package static var knownNames: Set<String> { Set(settings.map(\.name)) }

    /// Reads an environment as the service is configured from it: `IMGPROXY_` settings with an
    /// equivalent become their `IMAGO_` setting (which wins when both are set); others are named
    /// in a warning, or stop the start when they concern security. An unknown `IMAGO_` setting
    /// is named in a warning, or stops the start when it is a letter or two away from a known
    /// one (a misspelling would otherwise run with the default).
    ///
    /// - Returns: the environment to read, and the warnings to log.
    /// - Throws: ``ConfigurationError`` naming the variable.
    public static func migrate(_ environment: [String: String]) throws(ConfigurationError) -> (environment: [String: String], warnings: [String]) {
        try migrate(environment, alsoKnown: [])
    }

    /// As ``migrate(_:)``, knowing the settings named in `alsoKnown` too (the executable's).
    package static func migrate(
        _ environment: [String: String], alsoKnown: [SettingNames]
    ) throws(ConfigurationError) -> (environment: [String: String], warnings: [String]) {
        let known = knownNames.union(alsoKnown.map(\.name))
        var equivalents = imgproxyEquivalents
        for other in alsoKnown { for alias in other.imgproxyNames { equivalents[alias] = other.name } }
        var out = environment
        var warnings: [String] = []
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            if name.hasPrefix("IMGPROXY_") || name == "PORT" {
                if name == "PORT" {
                    if environment["IMAGO_BIND"] == nil, environment["IMGPROXY_BIND"] == nil { out["IMAGO_BIND"] = ":" + value }
                    continue
                }
                if let imago = equivalents[name] {
                    if let own = environment[imago] {
                        if own != value { warnings.append("\(name) is ignored: \(imago) is set too, and wins") }
                    } else {
                        out[imago] = value
                    }
                    continue
                }
                let bare = name.dropFirst("IMGPROXY_".count)
                if bare.hasPrefix(settingsLoaderPrefix) {
                    throw ConfigurationError(
                        variable: name,
                        reason: "Imago does not load settings from a file or a secret store; set them in the environment "
                            + "(systemd's EnvironmentFile= reads the same KEY=VALUE file)")
                }
                let words = bare.split(separator: "_").map(String.init)
                if !reportingPrefixes.contains(where: bare.hasPrefix), words.contains(where: securityWords.contains) {
                    throw ConfigurationError(
                        variable: name,
                        reason: "this imgproxy security setting has no equivalent in Imago; remove it to run without it")
                }
                warnings.append("\(name) has no equivalent in Imago and is ignored")
            } else if name.hasPrefix("IMAGO_"), !known.contains(name) {
                if let near = known.filter({ Self.distance(name, $0) <= 2 }).min() {
                    throw ConfigurationError(variable: name, reason: "not a setting; did you mean \(near)?")
                }
                warnings.append("\(name) is not a setting of this version and is ignored")
            }
        }
        if out["IMAGO_MAX_CLIENTS"] == "0", environment["IMAGO_MAX_CLIENTS"] == nil {
            out["IMAGO_MAX_CLIENTS"] = nil
            warnings.append("IMGPROXY_MAX_CLIENTS=0 (no limit) is not followed: IMAGO_MAX_CLIENTS keeps its cap")
        }
        // imgproxy's "0: no limit", where Imago's settings take a positive number.
        if out["IMAGO_MAX_RESULT_DIMENSION"] == "0", environment["IMAGO_MAX_RESULT_DIMENSION"] == nil { out["IMAGO_MAX_RESULT_DIMENSION"] = nil }
        if out["IMAGO_MAX_SRC_FILE_SIZE"] == "0", environment["IMAGO_MAX_SRC_FILE_SIZE"] == nil {
            out["IMAGO_MAX_SRC_FILE_SIZE"] = nil
            warnings.append("IMGPROXY_MAX_SRC_FILE_SIZE=0 (no limit) is not followed: IMAGO_MAX_SRC_FILE_SIZE keeps its limit")
        }
        return (out, warnings)
    }

    /// The Damerau-Levenshtein distance: insertions, deletions, substitutions and swaps of
    /// neighbours, one each.
    package static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }
}
