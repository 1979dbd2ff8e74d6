// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Plain words for why a connection failed, naming the host: "example.com:443 refused the
/// connection" rather than NIO's "connection reset (error set): Connection refused (errno: 111)".
enum ConnectionFailure {
    /// `host:port` of `url` (the scheme's default port when none is given).
    static func endpoint(of url: URL) -> String {
        let host = url.host ?? url.absoluteString
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = url.port { return "\(shown):\(port)" }
        switch url.scheme?.lowercased() {
        case "https": return "\(shown):443"
        case "http": return "\(shown):80"
        default: return shown
        }
    }

    /// A sentence naming `endpoint` and the cause of `error`, or `nil` when the error is not a
    /// connection failure this knows.
    static func message(for error: any Error, endpoint: String) -> String? {
        if let e = error as? NIOConnectionError {
            if e.connectionErrors.isEmpty { return "\(endpoint): the host name does not resolve" }
            // Every address was tried; the last one's error speaks for all.
            if let last = e.connectionErrors.last?.error {
                return message(for: last, endpoint: endpoint) ?? "could not connect to \(endpoint): \(last)"
            }
        }
        if error is SocketAddressError { return "\(endpoint): the host name does not resolve" }
        if let e = error as? IOError { return sentence(errno: e.errnoCode, endpoint: endpoint) }
        if let e = error as? ChannelError {
            switch e {
            case .connectTimeout: return "\(endpoint) did not accept the connection in time"
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
                return "\(endpoint) closed the connection"
            default: return nil
            }
        }
        if let e = error as? HTTPClientError {
            switch e {
            case .remoteConnectionClosed: return "\(endpoint) closed the connection before answering"
            case .connectTimeout: return "\(endpoint) did not accept the connection in time"
            case .socksHandshakeTimeout, .httpProxyHandshakeTimeout, .tlsHandshakeTimeout:
                return "the handshake with \(endpoint) timed out (\(e))"
            default: return nil
            }
        }
        return nil
    }

    /// The common socket errors in words.
    private static func sentence(errno code: Int32, endpoint: String) -> String {
        switch code {
        case ECONNREFUSED: "\(endpoint) refused the connection (nothing listens there)"
        case ECONNRESET: "\(endpoint) reset the connection"
        case EPIPE: "\(endpoint) closed the connection while the request was sent"
        case ETIMEDOUT: "\(endpoint) did not answer in time"
        case EHOSTUNREACH: "\(endpoint) is unreachable (no route to the host)"
        case ENETUNREACH: "\(endpoint) is unreachable (no route to its network)"
        case EADDRNOTAVAIL: "\(endpoint): the address is not available on this machine"
        case EACCES, EPERM: "\(endpoint): the connection is not permitted (a firewall or policy refused it)"
        default: "could not connect to \(endpoint) (system error \(code))"
        }
    }
}
