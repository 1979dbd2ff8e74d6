// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
public import Hummingbird
public import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageService {
    /// Mounts the service in a Hummingbird router (or route group): `GET /health`, `GET /metrics`
    /// and every image URL, under `prefix`.
    ///
    /// The image routes run behind the service's middleware, outermost first:
    /// ``ServiceTracingMiddleware`` (while a tracer is active, Hummingbird's `TracingMiddleware`:
    /// a server span per request, continuing a W3C `traceparent`; the pipeline's stage spans are
    /// its children), ``ServiceRequestIDMiddleware`` (the request id, errors answered as their JSON, the common
    /// headers), ``ServiceAccessLogMiddleware``, ``ServiceMetricsMiddleware``,
    /// ``ServiceDeadlineMiddleware`` (`IMAGO_REQUEST_TIMEOUT`) and
    /// ``ServiceAuthorizationMiddleware`` (`IMAGO_SECRET`). Pass `middleware: false` to add them
    /// yourself, in another order or beside your own (a tracing middleware, say); every failure
    /// the handler throws is a ``ServiceError``, which Hummingbird answers with its status.
    ///
    /// With ``ImageServiceRequestContext`` as the router's context and
    /// ``clientWatchHandlers()`` in the server's pipeline, a request whose client closes the
    /// connection is cancelled (its queued decode is dropped); with any other context requests
    /// run to the end.
    ///
    /// ```swift
    /// let router = Router()
    /// router.get("/") { _, _ in "my app" }
    /// let images = try ImageService(configuration: ServerConfiguration(environment: env))
    /// images.addRoutes(to: router, at: "/images")   // /images/{signature}/{options}/...
    /// let app = Application(router: router)
    /// try await app.runService()
    /// ```
    ///
    /// - Parameters:
    ///   - router: The router or group.
    ///   - prefix: Where the routes sit, with a leading `/` and no trailing one. Default `""`,
    ///     the root. Signatures cover the path after it, as imgproxy's do.
    ///   - operations: Add `/health`, `/metrics` and `POST /purge` (with `IMAGO_PURGE_SECRET`) too.
    ///     Default `true`.
    ///   - middleware: Put the image routes behind the service's middleware. Default `true`.
    ///
    /// With ``HTTPSettings/playground`` on, `GET /` (under `prefix`) serves the
    /// playground page.
    public func addRoutes<Methods: RouterMethods>(
        to router: Methods, at prefix: String = "", operations: Bool = true,
        middleware: Bool = true
    ) {
        let mount = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        let collection = routes(Methods.Context.self, mountedAt: mount, operations: operations, middleware: middleware)
        router.addRoutes(collection, atPath: RouterPath(mount))
    }

    /// The service's routes as a Hummingbird `RouteCollection`, relative to where they are
    /// mounted: what ``addRoutes(to:at:operations:middleware:)`` adds to a router, and what
    /// ``respond(method:path:headers:)`` answers through.
    ///
    /// - Parameters:
    ///   - context: The router's request context.
    ///   - mount: Where the collection is mounted (`""`: the root); signatures cover the path
    ///     after it.
    ///   - operations: Add `/health`, `/metrics` and `POST /purge` too. Default `true`.
    ///   - middleware: Put the image routes behind the service's middleware. Default `true`.
    public func routes<Context: RequestContext>(
        _ context: Context.Type, mountedAt mount: String = "", operations: Bool = true, middleware: Bool = true
    ) -> RouteCollection<Context> {
        let collection = RouteCollection(context: Context.self)
        if operations { addOperationRoutes(to: collection) }
        if configuration.http.playground {
            let page = ByteBuffer(string: Playground.page(mount: mount, signed: signer != nil))
            let headers: HTTPFields = [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: Playground.contentSecurityPolicy, .xContentTypeOptions: "nosniff"
            ]
            collection.get("/") { _, _ -> Response in
                Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: page))
            }
        }
        addPreflightRoutes(to: collection, middleware: middleware)
        addImageRoutes(to: collection, mount: mount, middleware: middleware)
        return collection
    }

    /// `GET` and `HEAD /health`, `POST /purge` and, unless it is served apart, `GET /metrics`
    /// (behind `IMAGO_SECRET` when one is set, as every other route but the health check).
    private func addOperationRoutes<Context: RequestContext>(to collection: RouteCollection<Context>) {
        let healthHeaders: HTTPFields = [.contentType: "text/plain", .cacheControl: "no-store"]
        collection.get("health") { _, _ -> Response in
            Response(status: .ok, headers: healthHeaders, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        // A load balancer's HEAD check gets the GET's answer without its body (imgproxy answers
        // HEAD on every path).
        collection.head("health") { _, _ -> Response in Response(status: .ok, headers: healthHeaders) }
        if let path = configuration.http.healthCheckPath {
            collection.get(RouterPath(path)) { _, _ -> Response in
                Response(status: .ok, headers: healthHeaders, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
            }
            collection.head(RouterPath(path)) { _, _ -> Response in Response(status: .ok, headers: healthHeaders) }
        }
        collection.post("purge") { [self] request, _ -> Response in
            let source = try await purgeRoute(query: request.uri.query, headers: request.headers)
            let body = (try? JSONEncoder().encode(["purged": source])) ?? Data()
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        if configuration.http.metricsBind == nil { addMetricsRoute(to: collection, secret: configuration.http.secret) }
    }

    /// A CORS preflight: 200 without the secret, as imgproxy answers it; and imgproxy's `HEAD`
    /// (`IMAGO_HEAD_AS_GET=false`): the preflight's bare 200, nothing fetched.
    private func addPreflightRoutes<Context: RequestContext>(to collection: RouteCollection<Context>, middleware: Bool) {
        let preflight =
            middleware
            ? collection.group().add(middleware: ServiceRequestIDMiddleware(logger: logger, allowOrigin: configuration.http.allowOrigin))
            : collection.group()
        preflight.on("**", method: .options) { [self] _, _ -> Response in
            let answer = ServiceHeaders.preflight
            return Response(status: answer.status, headers: answer.headers, body: answer.body.hummingbird(reads: self.fileReads))
        }
        if !configuration.http.headAsGet {
            preflight.on("**", method: .head) { _, _ -> Response in
                Response(status: .ok, headers: ServiceHeaders.preflight.headers)
            }
        }
    }

    /// Every image URL, behind the service's middleware when `middleware` is on.
    private func addImageRoutes<Context: RequestContext>(to collection: RouteCollection<Context>, mount: String, middleware: Bool) {
        let images = collection.group()
        if middleware {
            // A span per request, continuing the caller's trace (W3C traceparent) when it sends
            // one, while a tracer is active.
            images.add(middleware: ServiceTracingMiddleware())
                .add(middleware: ServiceRequestIDMiddleware(logger: logger, allowOrigin: configuration.http.allowOrigin))
                .add(middleware: ServiceAccessLogMiddleware(logger: logger))
                .add(middleware: ServiceMetricsMiddleware(metrics: metrics))
                .add(middleware: ServiceDeadlineMiddleware(limit: configuration.http.requestTimeout))
                .add(middleware: ServiceAuthorizationMiddleware(secret: configuration.http.secret))
        }
        for method in configuration.http.headAsGet ? [HTTPRequest.Method.get, .head] : [.get] {
            images.on("**", method: method) { [self] request, context -> Response in
                var path = Substring(request.uri.path)
                if !mount.isEmpty, path.hasPrefix(mount) { path = path.dropFirst(mount.count) }
                let client = (context as? ImageServiceRequestContext).flatMap { connections.connection($0.channelID) }
                let answer = try await self.handle(
                    method: request.method, path: String(path), headers: request.headers, authority: request.head.authority, client: client)
                return Response(status: answer.status, headers: answer.headers, body: answer.body.hummingbird(reads: self.fileReads))
            }
        }
    }

    /// `GET /metrics` (Prometheus text) on `router`: beside the images, or on its own address
    /// (`IMAGO_METRICS_BIND`, which ``ImageServer`` serves).
    public func addMetricsRoute<Methods: RouterMethods>(to router: Methods) {
        addMetricsRoute(to: router, secret: nil)
    }

    /// `GET /metrics`, asking for `Authorization: Bearer <secret>` when `secret` is set (the
    /// image port's `/metrics`: what the service counts is not for whoever can reach its images).
    func addMetricsRoute<Methods: RouterMethods>(to router: Methods, secret: String?) {
        router.get("metrics") { [metrics] request, _ -> Response in
            try ServiceAuthorization.check(request.headers, secret: secret)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.render())))
        }
    }

    /// The channel handlers that tell the service when a client goes away, and close
    /// connections whose request head does not arrive in time (`IMAGO_READ_REQUEST_TIMEOUT`,
    /// `IMAGO_KEEP_ALIVE_TIMEOUT`; see ``ConnectionLimits``), for
    /// `.http1(additionalChannelHandlers:)` in your `Application`. ``ImageServer`` adds them;
    /// an app should also cap its connections at ``connectionLimits``'s
    /// ``ConnectionLimits/maxConnections`` (Hummingbird's `availableConnectionsDelegate`).
    public func clientWatchHandlers() -> [any RemovableChannelHandler] {
        [ClientGoneHandler(connections: connections), ConnectionGuardHandler(table: waitingConnections)]
    }

    /// The connection limits in force: the settings, with ``HTTPSettings/maxClients``
    /// held to the process's open-file limit as it was when the service was made.
    public var connectionLimits: ConnectionLimits { waitingConnections.limits }
}
