// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// GET /avatars/{name}?size=64 → the origin's image {name}, cropped square and resized to 32,
// 64, 128 or 256 px, as WebP when the client accepts it and JPEG otherwise.
//
//   AVATAR_ORIGIN=https://uploads.example.com/avatars/ swift run ThumbnailServer
//   curl -o me.webp -H 'Accept: image/webp' 'http://127.0.0.1:8080/avatars/me.jpg?size=128'
//
// The response's X-Image-Source header says where the source came from (memory, disk or
// network) and X-Image-Method how the answer was made: rendered now, or stored (read from the
// result cache, nothing decoded).
import Foundation
import HTTPTypes
import Hummingbird
import Imago

let environment = ProcessInfo.processInfo.environment
guard let origin = environment["AVATAR_ORIGIN"].flatMap({ URL(string: $0) }), origin.scheme != nil else {
    print("set AVATAR_ORIGIN to the URL avatars are fetched from, e.g. https://uploads.example.com/avatars/")
    exit(2)
}
let port = environment["PORT"].flatMap { Int($0) } ?? 8080
let cacheDirectory = URL(fileURLWithPath: environment["AVATAR_CACHE"] ?? "avatar-cache", isDirectory: true)

// Original bytes on disk (at most 1 GiB, kept 30 days after their last use), and the encoded
// thumbnails beside them (at most 256 MiB): a size asked for again is read, not made again.
// The pipeline decodes, resizes and encodes on its own workers, never on the cooperative pool.
var configuration = ImageManager.Configuration(
    memoryCache: nil,
    dataCache: try DiskCache(directory: cacheDirectory, configuration: .init(maxAge: .seconds(30 * 24 * 3600), maxSize: 1 << 30)))
configuration.resultCache = try DiskCache(directory: cacheDirectory, configuration: .init(namespace: "thumbnails", maxSize: 256 << 20))
let manager = ImageManager(configuration: configuration)
// Stored thumbnails too large to keep inline are files: read off the cooperative pool.
let reads = WorkQueue(label: "avatar-reads", maxConcurrentCount: 2)
let sizes: Set<Int> = [32, 64, 128, 256]

let router = Router()
router.get("/avatars/:name") { request, context -> Response in
    let name = try context.parameters.require("name")
    let size = request.uri.queryParameters.get("size", as: Int.self) ?? 64
    guard sizes.contains(size) else {
        throw HTTPError(.badRequest, message: "size must be one of \(sizes.sorted())")
    }
    guard !name.contains(".."), let url = URL(string: name, relativeTo: origin)?.absoluteURL else {
        throw HTTPError(.badRequest, message: "bad avatar name")
    }

    // A square thumbnail: decode at reduced size (shrink-on-load), crop to fill, then encode as
    // the request's output says: WebP for clients that take it, else JPEG.
    let square = PixelSize(width: size, height: size)
    let webp = request.headers[.accept]?.contains("image/webp") == true
    var imageRequest = ImageRequest(url: url)
    imageRequest.thumbnail = .init(maxPixelSize: square, preserveAspectRatio: true)
    imageRequest.transformers = [ImageTransformers.Resize(size: square, mode: .aspectFill)]
    imageRequest.frames = .first
    imageRequest.output = ImageRequest.Output(format: webp ? .webp : .jpeg, quality: 0.82, metadata: .strip)

    let result: EncodedImageResult
    do {
        result = try await manager.loadEncodedImage(with: imageRequest)
    } catch ImageLoadingError.unacceptableStatusCode(404) {
        throw HTTPError(.notFound, message: "no avatar \(name)")
    } catch ImageLoadingError.decodingFailed(let reason) {
        throw HTTPError(.unprocessableContent, message: "the origin's file is not an image: \(reason)")
    } catch {
        throw HTTPError(.badGateway, message: error.localizedDescription)
    }
    let body: Data
    switch result.contents {
    case .data(let data): body = data
    case .file(let file): body = try await reads.run { try file.contents() }
    }
    var headers: HTTPFields = [
        .contentType: result.format.mimeType,
        .cacheControl: "public, max-age=86400"
    ]
    headers[.vary] = "Accept"
    if let imageSource = HTTPField.Name("X-Image-Source") { headers[imageSource] = result.source.rawValue }
    if let method = HTTPField.Name("X-Image-Method") { headers[method] = result.method.rawValue }
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
}

let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
print("serving avatars from \(origin.absoluteString) on http://127.0.0.1:\(port)/avatars/NAME?size=64")
try await app.runService()
