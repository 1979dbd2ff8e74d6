// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Logging

extension ServerConfiguration {
    /// The service's own settings: where it listens, who may ask, how long it waits, how much it
    /// does at once, and what it tells operators.
    static let serviceSettings: [Setting<ServerConfiguration>] = [
        .text("IMAGO_BIND", \.http.bind, imgproxy: "IMGPROXY_BIND", "host:port to listen on (a socket path for IMAGO_NETWORK=unix)"),
        .choice("IMAGO_NETWORK", \.http.network, imgproxy: "IMGPROXY_NETWORK", "tcp, tcp4, tcp6 or unix: what IMAGO_BIND names"),
        .text("IMAGO_KEY", \.urls.keys, secret: true, imgproxy: "IMGPROXY_KEY", "hex signing keys, comma-separated; none: URLs are not signed"),
        .text("IMAGO_SALT", \.urls.salts, secret: true, imgproxy: "IMGPROXY_SALT", "hex salts, one per key"),
        .int("IMAGO_SIGNATURE_SIZE", \.urls.signatureSize, 1...32, imgproxy: "IMGPROXY_SIGNATURE_SIZE", "bytes of the HMAC-SHA256 kept in signatures, 1-32"),
        .text("IMAGO_SECRET", \.http.secret, secret: true, imgproxy: "IMGPROXY_SECRET", "require Authorization: Bearer <secret>"),
        .text("IMAGO_PURGE_SECRET", \.http.purgeSecret, secret: true, "enables POST /purge?url=... with Authorization: Bearer <secret>"),
        .text(
            "IMAGO_ALLOW_ORIGIN", \.http.allowOrigin, imgproxy: "IMGPROXY_ALLOW_ORIGIN",
            "Access-Control-Allow-Origin on every answer (with Allow-Methods: GET, OPTIONS)"),
        .bool(
            "IMAGO_HEAD_AS_GET", \.http.headAsGet,
            "HEAD of an image URL gets its GET's headers; false: imgproxy's bare 200 text/plain for any HEAD"),
        .seconds("IMAGO_REQUEST_TIMEOUT", \.http.requestTimeout, imgproxy: "IMGPROXY_TIMEOUT", "seconds for a whole request (503 past it)"),
        .seconds(
            "IMAGO_READ_REQUEST_TIMEOUT", \.http.readRequestTimeout, imgproxy: "IMGPROXY_READ_REQUEST_TIMEOUT",
            "seconds for a request's head to arrive, from the connection's opening or last answer"),
        .seconds(
            "IMAGO_KEEP_ALIVE_TIMEOUT", \.http.keepAliveTimeout, zero: true, imgproxy: "IMGPROXY_KEEP_ALIVE_TIMEOUT",
            "seconds an idle keep-alive connection waits for its next request; 0: no keep-alive"),
        .int(
            "IMAGO_MAX_CLIENTS", \.http.maxClients, 1...1_000_000, imgproxy: "IMGPROXY_MAX_CLIENTS",
            "connections open at once (at most 3/4 of the open-file limit)"),
        .int("IMAGO_WORKERS", \.workers, 1...1024, imgproxy: "IMGPROXY_WORKERS", documentedDefault: "the cores", "decodes, transforms and encodes at once"),
        Setting("IMAGO_QUEUE_SIZE", imgproxy: ["IMGPROXY_REQUESTS_QUEUE_SIZE"], meaning: "requests waiting beyond the workers before 429 (0: no limit)") {
            env, c throws(ConfigurationError) in
            c.queueSize = try env.int("IMAGO_QUEUE_SIZE", in: 0...1_000_000) ?? c.queueSize
        } show: {
            $0.queueSize == 0 ? "0 (no limit)" : "\($0.queueSize)"
        },
        .seconds(
            "IMAGO_GRACEFUL_STOP_TIMEOUT", \.http.gracefulStopTimeout, imgproxy: "IMGPROXY_GRACEFUL_STOP_TIMEOUT",
            "seconds to finish in-flight requests on SIGTERM/SIGINT"),
        Setting("IMAGO_METRICS_BIND", imgproxy: ["IMGPROXY_PROMETHEUS_BIND"], meaning: "host:port serving /metrics on its own, instead of beside the images") {
            env, c throws(ConfigurationError) in
            guard let v = env["IMAGO_METRICS_BIND"] else { return }
            _ = try HTTPSettings.hostAndPort(v, variable: "IMAGO_METRICS_BIND")
            c.http.metricsBind = v
        } show: {
            $0.http.metricsBind ?? "none"
        },
        Setting("IMAGO_PATH_PREFIX", imgproxy: ["IMGPROXY_PATH_PREFIX"], meaning: "path every route sits under (/img: /img/{signature}/...)") {
            env, c throws(ConfigurationError) in
            guard let v = env["IMAGO_PATH_PREFIX"] else { return }
            c.http.pathPrefix = try HTTPSettings.routePath(v, variable: "IMAGO_PATH_PREFIX")
        } show: {
            $0.http.pathPrefix.isEmpty ? "none" : $0.http.pathPrefix
        },
        Setting("IMAGO_HEALTH_CHECK_PATH", imgproxy: ["IMGPROXY_HEALTH_CHECK_PATH"], meaning: "another path answering as /health does") {
            env, c throws(ConfigurationError) in
            guard let v = env["IMAGO_HEALTH_CHECK_PATH"] else { return }
            let path = try HTTPSettings.routePath(v, variable: "IMAGO_HEALTH_CHECK_PATH")
            c.http.healthCheckPath = path.isEmpty ? nil : path
        } show: {
            $0.http.healthCheckPath ?? "none"
        },
        .bool("IMAGO_PLAYGROUND", \.http.playground, "serve the playground page at /"),
        .bool("IMAGO_SERVER_TIMING", \.http.serverTiming, "send Server-Timing with each stage's duration"),
        Setting(
            "IMAGO_LOG_FORMAT", imgproxy: ["IMGPROXY_LOG_FORMAT"],
            meaning: "text or json (one object per line); imgproxy's pretty and structured are text, gcp json"
        ) {
            env, c throws(ConfigurationError) in
            guard let v = env["IMAGO_LOG_FORMAT"] else { return }
            switch v.lowercased() {
            case "text", "pretty", "structured": c.logFormat = "text"
            case "json", "gcp": c.logFormat = "json"
            default: throw ConfigurationError(variable: "IMAGO_LOG_FORMAT", reason: "'\(v)' is not text or json")
            }
        } show: {
            $0.logFormat
        },
        Setting(
            "IMAGO_LOG_LEVEL", imgproxy: ["IMGPROXY_LOG_LEVEL"],
            meaning: "trace, debug, info, notice, warning, error or critical (imgproxy's warn and fatal too): the access log and warnings"
        ) { env, c throws(ConfigurationError) in
            guard let v = env["IMAGO_LOG_LEVEL"]?.lowercased() else { return }
            guard let level = Logger.Level(rawValue: ["warn": "warning", "fatal": "critical"][v] ?? v) else {
                throw ConfigurationError(variable: "IMAGO_LOG_LEVEL", reason: "'\(v)' is not a log level")
            }
            c.logLevel = level
        } show: {
            $0.logLevel.rawValue
        },
        .bool("IMAGO_OTEL_ENABLE", \.otelEnabled, imgproxy: "IMGPROXY_OPEN_TELEMETRY_ENABLE", "export spans of each request's stages over OTLP/HTTP"),
        Setting("IMAGO_OTEL_ENDPOINT", meaning: "the OTLP/HTTP collector's base URL") { env, c throws(ConfigurationError) in
            c.otelEndpoint = try env.httpURL("IMAGO_OTEL_ENDPOINT") ?? c.otelEndpoint
        } show: {
            $0.otelEndpoint
        },
        Setting("IMAGO_OTEL_PROTOCOL", meaning: "http/protobuf or http/json") { env, c throws(ConfigurationError) in
            guard let value = env["IMAGO_OTEL_PROTOCOL"] else { return }
            guard value == "http/protobuf" || value == "http/json" else {
                throw ConfigurationError(variable: "IMAGO_OTEL_PROTOCOL", reason: "'\(value)' is not http/protobuf or http/json")
            }
            c.otelProtocol = value
        } show: {
            $0.otelProtocol
        },
        .text("IMAGO_OTEL_SERVICE_NAME", \.otelServiceName, "the service.name spans carry")
    ]
}
