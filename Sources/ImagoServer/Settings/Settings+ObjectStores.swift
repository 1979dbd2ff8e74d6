// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoLoading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ServerConfiguration {
    /// The object stores sources may come from, and the shared result storage. Each store is
    /// switched on by its `IMAGO_USE_…` setting, which reads the store's other settings.
    static let objectStoreSettings: [Setting<ServerConfiguration>] = [
        Setting(
            "IMAGO_USE_S3", imgproxy: ["IMGPROXY_USE_S3"],
            meaning: "enables s3://bucket/key sources, signed with AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the AWS profile"
        ) { env, c throws(ConfigurationError) in
            switch try env.bool("IMAGO_USE_S3") {
            case true?: c.sources.s3 = try Self.s3Settings(env)
            case false?: c.sources.s3 = nil
            case nil: break
            }
        } show: {
            "\($0.sources.s3 != nil)"
        },
        .member(
            "IMAGO_S3_REGION", of: "IMAGO_USE_S3", imgproxy: "IMGPROXY_S3_REGION", documentedDefault: "AWS_REGION, else us-west-1",
            "the buckets' region (default AWS_REGION, AWS_DEFAULT_REGION, the profile's, else us-west-1)"
        ) { $0.sources.s3?.region ?? "(AWS_REGION, else us-west-1)" },
        .member(
            "IMAGO_S3_ENDPOINT", of: "IMAGO_USE_S3", imgproxy: "IMGPROXY_S3_ENDPOINT", documentedDefault: "Amazon S3",
            "an S3-compatible store's URL (MinIO, Ceph, Swift s3api, storage.googleapis.com); default Amazon S3"
        ) { $0.sources.s3?.endpoint?.absoluteString ?? "(Amazon S3)" },
        .member(
            "IMAGO_S3_ENDPOINT_USE_PATH_STYLE", of: "IMAGO_USE_S3", imgproxy: "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE",
            "with IMAGO_S3_ENDPOINT: the bucket in the path (true) or in the host name"
        ) { "\($0.sources.s3?.usesPathStyle ?? true)" },
        Setting("IMAGO_USE_GCS", meaning: "enables gs://bucket/key sources through Google Cloud Storage's S3-compatible API") {
            env, c throws(ConfigurationError) in
            switch try env.bool("IMAGO_USE_GCS") {
            case true?: c.sources.gcs = try Self.gcsSettings(env)
            case false?: c.sources.gcs = nil
            case nil: break
            }
        } show: {
            "\($0.sources.gcs != nil)"
        },
        .member("IMAGO_GCS_ENDPOINT", of: "IMAGO_USE_GCS", imgproxy: "IMGPROXY_GCS_ENDPOINT", "the XML API's URL") {
            $0.sources.gcs?.endpoint?.absoluteString ?? "https://storage.googleapis.com"
        },
        .member("IMAGO_GCS_HMAC_ACCESS_ID", of: "IMAGO_USE_GCS", "the access ID of a Cloud Storage HMAC key") {
            $0.sources.gcs?.credentials?.accessKeyID ?? "none"
        },
        .member("IMAGO_GCS_HMAC_SECRET", of: "IMAGO_USE_GCS", "its secret") { $0.sources.gcs == nil ? "none" : "(set)" },
        Setting("IMAGO_USE_ABS", imgproxy: ["IMGPROXY_USE_ABS"], meaning: "enables abs://container/blob sources from Azure Blob Storage") {
            env, c throws(ConfigurationError) in
            switch try env.bool("IMAGO_USE_ABS") {
            case true?: c.sources.abs = try Self.azureSettings(env)
            case false?: c.sources.abs = nil
            case nil: break
            }
        } show: {
            "\($0.sources.abs != nil)"
        },
        .member("IMAGO_ABS_NAME", of: "IMAGO_USE_ABS", imgproxy: "IMGPROXY_ABS_NAME", "the storage account's name") { $0.sources.abs?.account ?? "none" },
        .member(
            "IMAGO_ABS_KEY", of: "IMAGO_USE_ABS", imgproxy: "IMGPROXY_ABS_KEY",
            "its base64 access key (Shared Key); none: unsigned requests, for public containers"
        ) {
            $0.sources.abs?.key == nil ? "none" : "(set)"
        },
        .member(
            "IMAGO_ABS_ENDPOINT", of: "IMAGO_USE_ABS", imgproxy: "IMGPROXY_ABS_ENDPOINT", documentedDefault: "https://NAME.blob.core.windows.net",
            "the Blob service's URL (Azurite, sovereign clouds); default https://NAME.blob.core.windows.net"
        ) { $0.sources.abs?.endpoint?.absoluteString ?? "(https://NAME.blob.core.windows.net)" },
        .seconds(
            "IMAGO_SWIFT_CONNECT_TIMEOUT_SECONDS", \.sources.swiftConnectTimeout, imgproxy: "IMGPROXY_SWIFT_CONNECT_TIMEOUT_SECONDS",
            "bounds a connection to Swift and its sign-in"),
        Setting("IMAGO_USE_SWIFT", imgproxy: ["IMGPROXY_USE_SWIFT"], meaning: "enables swift://container/object sources from OpenStack Swift") {
            env, c throws(ConfigurationError) in
            switch try env.bool("IMAGO_USE_SWIFT") {
            case true?: c.sources.swift = try Self.swiftSettings(env)
            case false?: c.sources.swift = nil
            case nil: break
            }
        } show: {
            "\($0.sources.swift != nil)"
        },
        .member(
            "IMAGO_SWIFT_AUTH_URL", of: "IMAGO_USE_SWIFT", imgproxy: "IMGPROXY_SWIFT_AUTH_URL",
            "Swift's sign-in URL: tempauth's /auth/v1.0, or Keystone's /v3 or /v2.0"
        ) {
            $0.sources.swift?.authURL.absoluteString ?? "none"
        },
        .member("IMAGO_SWIFT_USERNAME", of: "IMAGO_USE_SWIFT", imgproxy: "IMGPROXY_SWIFT_USERNAME", "the Swift or Keystone user (account:user for tempauth)") {
            $0.sources.swift?.username ?? "none"
        },
        .member("IMAGO_SWIFT_API_KEY", of: "IMAGO_USE_SWIFT", imgproxy: "IMGPROXY_SWIFT_API_KEY", "its key or password") {
            $0.sources.swift == nil ? "none" : "(set)"
        },
        .member(
            "IMAGO_SWIFT_AUTH_VERSION", of: "IMAGO_USE_SWIFT", imgproxy: "IMGPROXY_SWIFT_AUTH_VERSION", "1 (tempauth), 2 or 3 (Keystone); 0 chooses by the URL"
        ) {
            "\($0.sources.swift?.authVersion ?? 0)"
        },
        .member(
            "IMAGO_SWIFT_DOMAIN", of: "IMAGO_USE_SWIFT", imgproxy: "IMGPROXY_SWIFT_DOMAIN", documentedDefault: "Default",
            "Keystone v3: the user's and project's domain (default Default)"
        ) {
            $0.sources.swift?.domain ?? "(Default)"
        },
        .member("IMAGO_SWIFT_TENANT", of: "IMAGO_USE_SWIFT", imgproxy: "IMGPROXY_SWIFT_TENANT", "Keystone: the project the token is scoped to") {
            $0.sources.swift?.tenant ?? "none"
        },
        .member(
            "IMAGO_SWIFT_REGION", of: "IMAGO_USE_SWIFT", documentedDefault: "the first",
            "Keystone: the catalog region of the object-store endpoint (default the first public one)"
        ) { $0.sources.swift?.region ?? "(the first)" },
        Setting(
            "IMAGO_RESULT_STORAGE",
            meaning: "s3://bucket/prefix or swift://container/prefix: results and downloaded sources shared by every instance, behind the local caches"
        ) { env, c throws(ConfigurationError) in
            try c.readResultStorage(env)
        } show: {
            $0.cache.resultStorage.map(Self.describe) ?? "none"
        }
    ]

    /// The S3 settings of `IMAGO_S3_REGION`, `IMAGO_S3_ENDPOINT`, `IMAGO_S3_ENDPOINT_USE_PATH_STYLE`
    /// and the AWS environment (``AWSSharedConfiguration``).
    static func s3Settings(_ env: EnvironmentReader) throws(ConfigurationError) -> S3Settings {
        let aws = AWSSharedConfiguration(environment: env.values)
        var settings = S3Settings(region: env["IMAGO_S3_REGION"] ?? aws.region ?? "us-west-1", credentials: aws.credentials)
        settings.endpoint = try env.endpoint("IMAGO_S3_ENDPOINT")
        settings.usesPathStyle = try env.bool("IMAGO_S3_ENDPOINT_USE_PATH_STYLE") ?? true
        return settings
    }

    /// Google Cloud Storage through its XML API, which takes SigV4 with the region `auto` and an
    /// HMAC key.
    static func gcsSettings(_ env: EnvironmentReader) throws(ConfigurationError) -> S3Settings {
        guard let id = env["IMAGO_GCS_HMAC_ACCESS_ID"], let secret = env["IMAGO_GCS_HMAC_SECRET"] else {
            throw ConfigurationError(
                variable: "IMAGO_GCS_HMAC_ACCESS_ID", reason: "IMAGO_USE_GCS needs an HMAC key: IMAGO_GCS_HMAC_ACCESS_ID and IMAGO_GCS_HMAC_SECRET")
        }
        let endpoint = try env.endpoint("IMAGO_GCS_ENDPOINT") ?? URL(string: "https://storage.googleapis.com")
        return S3Settings(region: "auto", endpoint: endpoint, usesPathStyle: true, credentials: .init(accessKeyID: id, secretAccessKey: secret))
    }

    /// An Azure storage account from `IMAGO_ABS_NAME`, `IMAGO_ABS_KEY` and `IMAGO_ABS_ENDPOINT`.
    static func azureSettings(_ env: EnvironmentReader) throws(ConfigurationError) -> SourceSettings.AzureBlobSettings {
        guard let name = env["IMAGO_ABS_NAME"] else {
            throw ConfigurationError(variable: "IMAGO_ABS_NAME", reason: "IMAGO_USE_ABS needs the storage account's name")
        }
        let settings = SourceSettings.AzureBlobSettings(account: name, key: env["IMAGO_ABS_KEY"], endpoint: try env.endpoint("IMAGO_ABS_ENDPOINT"))
        if let key = settings.key, AzureSharedKey(account: name, key: key) == nil {
            throw ConfigurationError(variable: "IMAGO_ABS_KEY", reason: "the key is not base64")
        }
        return settings
    }

    /// OpenStack Swift's sign-in from the `IMAGO_SWIFT_*` settings.
    static func swiftSettings(_ env: EnvironmentReader) throws(ConfigurationError) -> SwiftStorageSettings {
        guard let auth = try env.httpURL("IMAGO_SWIFT_AUTH_URL"), let url = URL(string: auth), url.host?.isEmpty == false else {
            throw ConfigurationError(variable: "IMAGO_SWIFT_AUTH_URL", reason: "IMAGO_USE_SWIFT needs the sign-in URL (http or https)")
        }
        guard let user = env["IMAGO_SWIFT_USERNAME"], let key = env["IMAGO_SWIFT_API_KEY"] else {
            throw ConfigurationError(variable: "IMAGO_SWIFT_USERNAME", reason: "IMAGO_USE_SWIFT needs IMAGO_SWIFT_USERNAME and IMAGO_SWIFT_API_KEY")
        }
        return SwiftStorageSettings(
            authURL: url, username: user, apiKey: key, authVersion: try env.int("IMAGO_SWIFT_AUTH_VERSION", in: 0...3) ?? 0,
            domain: env["IMAGO_SWIFT_DOMAIN"], tenant: env["IMAGO_SWIFT_TENANT"], region: env["IMAGO_SWIFT_REGION"])
    }

    /// `IMAGO_RESULT_STORAGE`: `s3://BUCKET/PREFIX` (with the S3 settings and credentials, whether
    /// or not s3 sources are on) or `swift://CONTAINER/PREFIX` (with the `IMAGO_SWIFT_*` sign-in).
    private mutating func readResultStorage(_ env: EnvironmentReader) throws(ConfigurationError) {
        guard let location = env["IMAGO_RESULT_STORAGE"] else { return }
        let refusal = ConfigurationError(variable: "IMAGO_RESULT_STORAGE", reason: "'\(location)' is not s3://BUCKET/PREFIX or swift://CONTAINER/PREFIX")
        guard let url = URL(string: location), let name = url.host, !name.isEmpty else { throw refusal }
        let prefix = url.path(percentEncoded: false).split(separator: "/").joined(separator: "/")
        switch url.scheme?.lowercased() {
        case "s3":
            var settings: S3Settings
            if let s3 = sources.s3 { settings = s3 } else { settings = try Self.s3Settings(env) }
            cache.resultStorage = CacheSettings.ResultStorage(store: .s3(settings, bucket: name), prefix: prefix)
        case "swift":
            guard let swift = sources.swift else {
                throw ConfigurationError(variable: "IMAGO_RESULT_STORAGE", reason: "a swift:// location needs IMAGO_USE_SWIFT and its sign-in settings")
            }
            cache.resultStorage = CacheSettings.ResultStorage(store: .swift(swift, container: name), prefix: prefix)
        default:
            throw refusal
        }
    }

    /// `s3://BUCKET/PREFIX` or `swift://CONTAINER/PREFIX`.
    static func describe(_ storage: CacheSettings.ResultStorage) -> String {
        switch storage.store {
        case .s3(_, let bucket): "s3://\(bucket)/\(storage.prefix)"
        case .swift(_, let container): "swift://\(container)/\(storage.prefix)"
        }
    }
}
