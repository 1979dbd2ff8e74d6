// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCore

/// Recent decodes of sources kept for other sizes of the same source
/// (``ImageManager/Configuration/decodedImageRetention``): a request whose decode would shrink on
/// load to a size at most this far below a kept decode resizes the kept one instead of decoding.
///
/// A source is known by its bytes' digest and everything else that decides its pixels (the
/// decode spec without its size), so other bytes under the same URL never meet an old decode.
/// Each source keeps a few sizes; a new decode replaces the kept ones it serves, so a hot source
/// converges on the decode that serves the sizes being asked for. Only whole still images are
/// kept: no thumbnails (already resized), no pages, no animations, no embedded thumbnails.
final class DecodedIntermediates: Sendable {
    /// What decides a source's pixels, besides the size.
    struct Identity: Hashable, Sendable {
        var digest: UInt64
        var spec: DecodeSpec
    }

    /// A kept decode serves a request when it is at least the requested size and holds at most
    /// this many times the pixels asked for (16×: two DCT scales up). A JPEG decoded at 1/8
    /// still reads every coefficient of the file (djpeg -scale 1/8: 31 ms for 12 megapixels on
    /// this project's benchmark machine), while the box shrink and filter of a kept decode 16 times
    /// the pixels asked for take a few: below 16×, resizing what is kept is the cheaper way.
    static let maxAreaRatio = 16

    /// A kept decode: whether it is the whole image (decoded with no size asked), and whether its
    /// decoder could not shrink it towards the size asked (a PNG, say), so a new decode for any
    /// smaller size would be as large.
    struct Kept: Sendable {
        var image: Image
        var whole: Bool
        var unshrunk: Bool
    }

    private let cache: MemoryCache<Identity, [Kept]>

    init(retention: ImageManager.DecodedImageRetention) {
        cache = MemoryCache(costLimit: retention.costLimit, ageLimit: retention.ageLimit, entryCostRatio: 0.5)
    }

    /// The identity of `spec`'s decode of the bytes with `digest`, or `nil` when such decodes are
    /// not kept.
    static func identity(of spec: DecodeSpec, digest: UInt64?) -> Identity? {
        guard let digest, spec.thumbnail == nil, spec.scaleDownLimitBytes == nil, !spec.embeddedThumbnail, spec.page == nil,
            spec.frames != .lazy
        else { return nil }
        var plain = spec
        plain.sizeHint = nil
        return Identity(digest: digest, spec: plain)
    }

    /// The smallest kept decode that serves a decode for `hint` (`nil`: the whole image), if any.
    func image(for identity: Identity, hint: PixelSize?) -> Image? {
        cache.value(forKey: identity)?.first { Self.serves($0, hint: hint) }?.image
    }

    /// Keeps `image`, decoded for `hint`, in place of the kept decodes it serves.
    func keep(_ image: Image, for identity: Identity, hint: PixelSize?) {
        guard image.frameCount == 1 else { return }
        let size = image.pixelSize
        let unshrunk = hint.map { Self.area(size) > Self.area($0) * Self.maxAreaRatio } ?? false
        let new = Kept(image: image, whole: hint == nil, unshrunk: unshrunk)
        var kept = cache.value(forKey: identity) ?? []
        kept.removeAll { old in old.image.pixelSize == image.pixelSize || Self.serves(new, hint: old.image.pixelSize) }
        kept.append(new)
        kept.sort { Self.area($0.image.pixelSize) < Self.area($1.image.pixelSize) }
        _ = cache.setValue(kept, forKey: identity, cost: kept.reduce(0) { $0 + $1.image.byteCount })
    }

    /// Forgets every kept decode.
    func removeAll() {
        cache.removeAll()
    }

    /// Whether `kept` serves a decode for `hint`: the whole image asked, and it is whole; or a
    /// size asked, and it is at least as large and either not so much larger that resizing it
    /// costs more than decoding anew, or as small as its decoder makes it.
    static func serves(_ kept: Kept, hint: PixelSize?) -> Bool {
        let size = kept.image.pixelSize
        guard let hint else { return kept.whole }
        return size.width >= hint.width && size.height >= hint.height
            && (kept.unshrunk || area(size) <= area(hint) * maxAreaRatio)
    }

    private static func area(_ size: PixelSize) -> Int {
        size.width.multipliedReportingOverflow(by: size.height).partialValue
    }
}
