// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Hummingbird
import HummingbirdCore
import ImagoCore
public import Logging
public import ServiceLifecycle

/// `imago-server`'s server: an ``ImageService`` behind Hummingbird's HTTP/1.1 server, with its
/// middleware and graceful shutdown. A client that closes its connection cancels its request's
/// work.
///
/// It tunes nothing for the whole process. The `imago-server` executable does, around it: it
/// caps glibc's malloc arenas and maps large allocations apart (`IMAGO_MALLOC_ARENAS`,
/// `IMAGO_MALLOC_MMAP_THRESHOLD`), raises the open-file limit, pins the workers
/// (`IMAGO_WORKER_AFFINITY`, through ``ImageService``'s `laneHooks`) and trims the heap when the
/// service goes idle (`IMAGO_FREE_MEMORY_INTERVAL`, with ``ImageService/isIdle``,
/// ``ImageService/activity`` and ``ServiceMetrics/heapTrimmed()``). An app embedding the server
/// decides those for itself, with the same calls.
///
/// Connections are capped (``ConnectionLimits``): past ``HTTPSettings/maxClients`` (at
/// most three quarters of the open-file limit) it stops accepting until one closes, and a
/// connection whose request head is late is closed.
///
/// On SIGTERM or SIGINT it stops accepting connections, lets the requests in flight finish
/// within ``HTTPSettings/gracefulStopTimeout`` (then cancels them), writes the source
/// cache's pending entries, and returns.
public struct ImageServer: Sendable {
    /// The service answering requests.
    public let service: ImageService
    /// The server's logger.
    public let logger: Logger

    /// Creates a server for `service`.
    public init(service: ImageService, logger: Logger = Logger(label: "imago.server")) {
        self.service = service
        self.logger = logger
    }

    /// Runs until a signal (or the calling task's cancellation) stops it.
    ///
    /// - Parameters:
    ///   - handleSignals: Stop gracefully on SIGTERM and SIGINT. Default `true`; tests that
    ///     run several servers in one process pass `false` and cancel the task instead.
    ///   - services: More services to run beside the server and stop with it (a heap
    ///     trimmer, say). Default none.
    ///   - onListening: Called with the bound host and port once the server accepts connections
    ///     (the port is the real one when `IMAGO_BIND` asked for port 0; a socket's path and 0
    ///     with `IMAGO_NETWORK=unix`).
    /// - Throws: ``ConfigurationError`` for an unusable `IMAGO_BIND` (for `IMAGO_NETWORK`); the
    ///   server's errors when it cannot bind.
    public func run(
        handleSignals: Bool = true, services: [any Service] = [],
        onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) async throws {
        let configuration = service.configuration
        let (host, port, unix) = try configuration.http.listenAddress()
        let router = Router(context: ImageServiceRequestContext.self)
        service.addRoutes(to: router, at: configuration.http.pathPrefix)
        let logger = self.logger
        let workers = "\(configuration.workers) workers"
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: service.clientWatchHandlers())),
            configuration: ApplicationConfiguration(
                address: unix ? .unixDomainSocket(path: host) : .hostname(host, port: port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(service.connectionLimits.maxConnections, logger: logger)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                logger.info("imago-server listening on \(unix ? "unix:" + host : "\(host):\(bound)"), \(workers)")
                await onListening(host, bound)
            },
            logger: logger)
        var all: [any Service] = [app] + services
        if let metricsBind = configuration.http.metricsBind {
            // /metrics on an address of its own (imgproxy's IMGPROXY_PROMETHEUS_BIND).
            let (metricsHost, metricsPort) = try HTTPSettings.hostAndPort(metricsBind, variable: "IMAGO_METRICS_BIND")
            let metricsRouter = Router()
            service.addMetricsRoute(to: metricsRouter)
            all.append(
                Application(
                    router: metricsRouter, configuration: ApplicationConfiguration(address: .hostname(metricsHost, port: metricsPort), serverName: nil),
                    onServerRunning: { channel in
                        logger.info("metrics listening on \(metricsHost):\(channel.localAddress?.port ?? metricsPort)")
                    },
                    logger: logger))
        }
        var group = ServiceGroupConfiguration(
            services: all, gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
            logger: logger)
        group.maximumGracefulShutdownDuration = configuration.http.gracefulStopTimeout
        do {
            try await ServiceGroup(configuration: group).run()
        } catch is CancellationError {
            // Past the graceful stop's time limit the requests left were cancelled: still a stop.
        }
        await service.shutdown()
        logger.info("imago-server stopped")
    }
}
