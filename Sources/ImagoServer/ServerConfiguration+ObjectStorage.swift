// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoLoading

extension ServerConfiguration {
    /// The object stores' settings: `IMAGO_USE_S3` with `IMAGO_S3_REGION`, `IMAGO_S3_ENDPOINT`
    /// and `IMAGO_S3_ENDPOINT_USE_PATH_STYLE`, the AWS credentials and region of the environment
    /// (``AWSSharedConfiguration``); `IMAGO_USE_GCS` with `IMAGO_GCS_ENDPOINT`,
    /// `IMAGO_GCS_HMAC_ACCESS_ID` and `IMAGO_GCS_HMAC_SECRET`; `IMAGO_USE_ABS` with
    /// `IMAGO_ABS_NAME`, `IMAGO_ABS_KEY` and `IMAGO_ABS_ENDPOINT`; `IMAGO_USE_SWIFT` with `IMAGO_SWIFT_AUTH_URL`,
    /// `IMAGO_SWIFT_USERNAME`, `IMAGO_SWIFT_API_KEY`, `IMAGO_SWIFT_AUTH_VERSION`,
    /// `IMAGO_SWIFT_DOMAIN`, `IMAGO_SWIFT_TENANT`, `IMAGO_SWIFT_REGION` and
    /// `IMAGO_SWIFT_CONNECT_TIMEOUT_SECONDS`.
    ///
    /// - Throws: ``ConfigurationError`` for a value that does not read, an endpoint that is not
    ///   an `http(s)` URL with a host.
    mutating func applyObjectStorageSettings(_ env: EnvironmentReader) throws(ConfigurationError) {
        if try env.bool("IMAGO_USE_S3") == true {
            s3 = try Self.s3Settings(env)
        } else if try env.bool("IMAGO_USE_S3") == false {
            s3 = nil
        }
        if try env.bool("IMAGO_USE_GCS") == true {
            guard let id = env["IMAGO_GCS_HMAC_ACCESS_ID"], let secret = env["IMAGO_GCS_HMAC_SECRET"] else {
                throw ConfigurationError(
                    variable: "IMAGO_GCS_HMAC_ACCESS_ID", reason: "IMAGO_USE_GCS needs an HMAC key: IMAGO_GCS_HMAC_ACCESS_ID and IMAGO_GCS_HMAC_SECRET")
            }
            let endpoint = try env.httpURL("IMAGO_GCS_ENDPOINT") ?? "https://storage.googleapis.com"
            guard let url = URL(string: endpoint), url.host?.isEmpty == false else {
                throw ConfigurationError(variable: "IMAGO_GCS_ENDPOINT", reason: "'\(endpoint)' has no host")
            }
            // Google's XML API takes SigV4 with the region "auto".
            gcs = S3Settings(region: "auto", endpoint: url, usesPathStyle: true, credentials: .init(accessKeyID: id, secretAccessKey: secret))
        } else if try env.bool("IMAGO_USE_GCS") == false {
            gcs = nil
        }
        if try env.bool("IMAGO_USE_ABS") == true {
            guard let name = env["IMAGO_ABS_NAME"] else {
                throw ConfigurationError(variable: "IMAGO_ABS_NAME", reason: "IMAGO_USE_ABS needs the storage account's name")
            }
            var settings = AzureBlobSettings(account: name, key: env["IMAGO_ABS_KEY"])
            if let endpoint = try env.httpURL("IMAGO_ABS_ENDPOINT") {
                guard let url = URL(string: endpoint), url.host?.isEmpty == false else {
                    throw ConfigurationError(variable: "IMAGO_ABS_ENDPOINT", reason: "'\(endpoint)' has no host")
                }
                settings.endpoint = url
            }
            if let key = settings.key, AzureSharedKey(account: name, key: key) == nil {
                throw ConfigurationError(variable: "IMAGO_ABS_KEY", reason: "the key is not base64")
            }
            abs = settings
        } else if try env.bool("IMAGO_USE_ABS") == false {
            abs = nil
        }
        swiftConnectTimeout = try env.seconds("IMAGO_SWIFT_CONNECT_TIMEOUT_SECONDS") ?? swiftConnectTimeout
        if try env.bool("IMAGO_USE_SWIFT") == true {
            guard let auth = try env.httpURL("IMAGO_SWIFT_AUTH_URL"), let url = URL(string: auth), url.host?.isEmpty == false else {
                throw ConfigurationError(variable: "IMAGO_SWIFT_AUTH_URL", reason: "IMAGO_USE_SWIFT needs the sign-in URL (http or https)")
            }
            guard let user = env["IMAGO_SWIFT_USERNAME"], let key = env["IMAGO_SWIFT_API_KEY"] else {
                throw ConfigurationError(variable: "IMAGO_SWIFT_USERNAME", reason: "IMAGO_USE_SWIFT needs IMAGO_SWIFT_USERNAME and IMAGO_SWIFT_API_KEY")
            }
            swift = SwiftStorageSettings(
                authURL: url, username: user, apiKey: key, authVersion: try env.int("IMAGO_SWIFT_AUTH_VERSION", in: 0...3) ?? 0,
                domain: env["IMAGO_SWIFT_DOMAIN"], tenant: env["IMAGO_SWIFT_TENANT"], region: env["IMAGO_SWIFT_REGION"])
        } else if try env.bool("IMAGO_USE_SWIFT") == false {
            swift = nil
        }
        try applyResultStorage(env)
    }

    /// The S3 settings of `IMAGO_S3_REGION`, `IMAGO_S3_ENDPOINT`, `IMAGO_S3_ENDPOINT_USE_PATH_STYLE`
    /// and the AWS environment.
    static func s3Settings(_ env: EnvironmentReader) throws(ConfigurationError) -> S3Settings {
        let aws = AWSSharedConfiguration(environment: env.values)
        var settings = S3Settings(region: env["IMAGO_S3_REGION"] ?? aws.region ?? "us-west-1", credentials: aws.credentials)
        if let endpoint = try env.httpURL("IMAGO_S3_ENDPOINT") {
            guard let url = URL(string: endpoint), url.host?.isEmpty == false else {
                throw ConfigurationError(variable: "IMAGO_S3_ENDPOINT", reason: "'\(endpoint)' has no host")
            }
            settings.endpoint = url
        }
        settings.usesPathStyle = try env.bool("IMAGO_S3_ENDPOINT_USE_PATH_STYLE") ?? true
        return settings
    }

    /// `IMAGO_RESULT_STORAGE`: `s3://BUCKET/PREFIX` (with the S3 settings and credentials, whether
    /// or not s3 sources are on) or `swift://CONTAINER/PREFIX` (with the `IMAGO_SWIFT_*` sign-in).
    private mutating func applyResultStorage(_ env: EnvironmentReader) throws(ConfigurationError) {
        guard let location = env["IMAGO_RESULT_STORAGE"] else { return }
        guard let url = URL(string: location), let name = url.host, !name.isEmpty else {
            throw ConfigurationError(variable: "IMAGO_RESULT_STORAGE", reason: "'\(location)' is not s3://BUCKET/PREFIX or swift://CONTAINER/PREFIX")
        }
        let prefix = url.path(percentEncoded: false).split(separator: "/").joined(separator: "/")
        switch url.scheme?.lowercased() {
        case "s3":
            let settings: S3Settings
            if let s3 {
                settings = s3
            } else {
                settings = try Self.s3Settings(env)
            }
            resultStorage = ResultStorage(store: .s3(settings, bucket: name), prefix: prefix)
        case "swift":
            guard let swift else {
                throw ConfigurationError(variable: "IMAGO_RESULT_STORAGE", reason: "a swift:// location needs IMAGO_USE_SWIFT and its sign-in settings")
            }
            resultStorage = ResultStorage(store: .swift(swift, container: name), prefix: prefix)
        default:
            throw ConfigurationError(variable: "IMAGO_RESULT_STORAGE", reason: "'\(location)' is not s3://BUCKET/PREFIX or swift://CONTAINER/PREFIX")
        }
        guard resultCacheSize > 0 else {
            throw ConfigurationError(
                variable: "IMAGO_RESULT_STORAGE", reason: "shared results sit behind the local result cache: IMAGO_RESULT_CACHE_SIZE must not be 0")
        }
    }
}

extension ServerConfiguration {
    /// The URL of a remote source as a request names it (after ``resolveSource(_:)``): `http`
    /// and `https`, and `s3`, `gs`, `abs` and `swift` when ``s3``, ``gcs``, ``abs`` or ``swift`` is set.
    ///
    /// - Throws: ``ServiceError`` 404 `invalid_source` for another scheme, an object store that
    ///   is not enabled (saying which setting enables it), or a URL without a host.
    func remoteSourceURL(_ source: String) throws(ServiceError) -> URL {
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else {
            throw ServiceError(status: 404, code: "invalid_source", message: "the source must be an http, https or local URL")
        }
        switch scheme {
        case "http", "https": return url
        case "s3" where s3 != nil: return url
        case "s3": throw ServiceError(status: 404, code: "invalid_source", message: "s3 sources are not enabled (IMAGO_USE_S3)")
        case "gs" where gcs != nil: return url
        case "gs": throw ServiceError(status: 404, code: "invalid_source", message: "gs sources are not enabled (IMAGO_USE_GCS)")
        case "abs" where abs != nil: return url
        case "abs": throw ServiceError(status: 404, code: "invalid_source", message: "abs sources are not enabled (IMAGO_USE_ABS)")
        case "swift" where swift != nil: return url
        case "swift": throw ServiceError(status: 404, code: "invalid_source", message: "swift sources are not enabled (IMAGO_USE_SWIFT)")
        default: throw ServiceError(status: 404, code: "invalid_source", message: "the source must be an http, https or local URL")
        }
    }
}
