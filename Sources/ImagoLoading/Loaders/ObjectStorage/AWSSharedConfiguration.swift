// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The AWS configuration a process is given the way the AWS CLI and SDKs read it: the
/// `AWS_*` environment variables, then the shared credentials and config files of the profile.
///
/// Looked up, first found: credentials from `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`
/// (with `AWS_SESSION_TOKEN`), else the profile's `aws_access_key_id` and
/// `aws_secret_access_key` (and `aws_session_token`) in the credentials file
/// (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`), else in the config file
/// (`AWS_CONFIG_FILE`, default `~/.aws/config`); the region from `AWS_REGION`, else
/// `AWS_DEFAULT_REGION`, else the profile's `region` in the config file. The profile is
/// `AWS_PROFILE`, else `default`. Role assumption, SSO, web identity and the instance metadata
/// service are not read: give such credentials through the environment.
public struct AWSSharedConfiguration: Sendable, Hashable {
    /// The credentials found, or `nil`.
    public var credentials: AWSSignatureV4.Credentials?
    /// The region found, or `nil`.
    public var region: String?

    /// The configuration of `environment` (the process's by default), reading the profile's files
    /// where the variables point (files larger than 1 MiB or unreadable count as absent).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        let credentialsFile = Self.read(environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials")
        let configFile = Self.read(environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config")
        // The credentials file names sections by profile; the config file as "profile NAME"
        // (and "default" alone).
        let fromCredentials = credentialsFile.flatMap { Self.section(profile, of: $0) }
        let fromConfig = configFile.flatMap { Self.section(profile == "default" ? "default" : "profile " + profile, of: $0) }

        if let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"], !id.isEmpty, !secret.isEmpty {
            credentials = AWSSignatureV4.Credentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        } else {
            credentials = [fromCredentials, fromConfig].lazy.compactMap { $0.flatMap(Self.credentials(in:)) }.first
        }
        region =
            [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"], fromConfig?["region"]]
            .lazy.compactMap { $0 }.first { !$0.isEmpty }
    }

    /// The static keys of a profile's section.
    private static func credentials(in section: [String: String]) -> AWSSignatureV4.Credentials? {
        guard let id = section["aws_access_key_id"], let secret = section["aws_secret_access_key"], !id.isEmpty, !secret.isEmpty else {
            return nil
        }
        return AWSSignatureV4.Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: section["aws_session_token"])
    }

    /// The text of the file at `path`, when it is there, readable and at most 1 MiB.
    private static func read(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? Int, size <= 1 << 20,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The `key = value` pairs of section `[name]` of an INI text (keys lowercased; comments
    /// after `#` or `;` at a line's start ignored); `nil` when there is no such section.
    static func section(_ name: String, of text: String) -> [String: String]? {
        var current: String?
        var found: [String: String]?
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = PathName.trimmed(raw)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                current = line.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                if current == name, found == nil { found = [:] }
                continue
            }
            guard current == name, let equals = line.firstIndex(of: "=") else { continue }
            let key = PathName.trimmed(line[..<equals]).lowercased()
            let value = PathName.trimmed(line[line.index(after: equals)...])
            found?[key] = value
        }
        return found
    }
}
