public import Hummingbird
public import NIOCore

extension ImageService {
    /// Mounts the service in a Hummingbird router (or route group): `GET /health`, `GET /metrics`
    /// and every image URL, under `prefix`.
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
    ///   - operations: Add `/health` and `/metrics` too. Default `true`.
    ///
    /// With ``ServerConfiguration/playground`` on, `GET /` (under `prefix`) serves the
    /// playground page.
    public func addRoutes<Methods: RouterMethods>(to router: Methods, at prefix: String = "", operations: Bool = true) {
        let mount = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        let group = mount.isEmpty ? router.group() : router.group(RouterPath(mount))
        if operations {
            group.get("health") { _, _ -> Response in
                Response(status: .ok, headers: [.contentType: "text/plain", .cacheControl: "no-store"],
                         body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
            }
            group.get("metrics") { [metrics] _, _ -> Response in
                Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                         body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.render())))
            }
        }
        if configuration.playground {
            let page = ByteBuffer(string: Playground.page(mount: mount, signed: signer != nil))
            let headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                                       .contentSecurityPolicy: Playground.contentSecurityPolicy, .xContentTypeOptions: "nosniff"]
            group.get("/") { _, _ -> Response in
                Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: page))
            }
        }
        for method in [HTTPRequest.Method.get, .head] {
            group.on("**", method: method) { [self] request, context -> Response in
                var path = Substring(request.uri.path)
                if !mount.isEmpty, path.hasPrefix(mount) { path = path.dropFirst(mount.count) }
                let client = (context as? ImageServiceRequestContext).flatMap { connections.connection($0.channelID) }
                let answer = await self.respond(method: request.method, path: String(path), headers: request.headers, client: client)
                return Response(status: answer.status, headers: answer.headers,
                                body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
            }
        }
    }

    /// The channel handlers that tell the service when a client goes away, for
    /// `.http1(additionalChannelHandlers:)` in your `Application`. ``ImageServer`` adds them.
    public func clientWatchHandlers() -> [any RemovableChannelHandler] {
        [ClientGoneHandler(connections: connections)]
    }
}
