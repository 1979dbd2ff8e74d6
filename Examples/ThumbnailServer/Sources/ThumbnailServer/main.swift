// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// GET /avatars/{name}?size=64 → the origin's image {name}, cropped square and resized to 32,
// 64, 128 or 256 px, as WebP when the client accepts it and JPEG otherwise.
//
//   AVATAR_ORIGIN=https://uploads.example.com/avatars/ swift run ThumbnailServer
//   curl -o me.webp -H 'Accept: image/webp' 'http://127.0.0.1:8080/avatars/me.jpg?size=128'
//
// The response's X-Image-Source header says where the image came from: memory (decoded and
// resized already), disk (original bytes cached, decoded now) or network.
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

// Both caches: decoded thumbnails in memory (at most 64 MiB), original bytes on disk (at most
// 1 GiB, kept 30 days after their last use).
let disk = try DiskCache(
    directory: cacheDirectory,
    configuration: .init(maxAge: .seconds(30 * 24 * 3600), maxSize: 1 << 30))
let manager = ImageManager(cache: ImageCache(memory: MemoryCache(costLimit: 64 << 20), disk: disk))
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

    // A square thumbnail: decode at reduced size (shrink-on-load), then crop to fill.
    let square = PixelSize(width: size, height: size)
    var imageRequest = ImageRequest(url: url)
    imageRequest.thumbnail = .init(maxPixelSize: square, preserveAspectRatio: true)
    imageRequest.transformers = [ImageTransformers.Resize(size: square, mode: .aspectFill)]
    imageRequest.frames = .first

    let result: ImageLoadResult
    do {
        result = try await manager.loadImage(with: imageRequest)
    } catch ImageLoadingError.unacceptableStatusCode(404) {
        throw HTTPError(.notFound, message: "no avatar \(name)")
    } catch ImageLoadingError.decodingFailed(let reason) {
        throw HTTPError(.unprocessableContent, message: "the origin's file is not an image: \(reason)")
    } catch {
        throw HTTPError(.badGateway, message: error.localizedDescription)
    }

    let webp = request.headers[.accept]?.contains("image/webp") == true
    let body = try ImageCoderRegistry.shared.encode(
        result.image, as: webp ? .webp : .jpeg,
        options: EncodeOptions(quality: 0.82))
    var headers: HTTPFields = [
        .contentType: webp ? "image/webp" : "image/jpeg",
        .cacheControl: "public, max-age=86400"
    ]
    headers[.vary] = "Accept"
    if let imageSource = HTTPField.Name("X-Image-Source") { headers[imageSource] = result.source.rawValue }
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
}

let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
print("serving avatars from \(origin.absoluteString) on http://127.0.0.1:\(port)/avatars/NAME?size=64")
try await app.runService()
