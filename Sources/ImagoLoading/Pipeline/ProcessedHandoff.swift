// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import Synchronization

/// Finished images held for one more encode of the same pixels
/// (``ImageRequest/holdsProcessedImage``): a service that answers with one format and then tries
/// another for the same result (a JPEG now, an AVIF that replaces it when smaller) encodes the
/// second from the first one's pixels instead of decoding and transforming again.
///
/// An image is held under its source's digest, the decode spec and the transformers' keys, so
/// only a load that would make exactly these pixels takes it; it is taken once, and dropped
/// when nobody takes it in time (30 s by default) or when ``maxHeld`` newer ones are held.
final class ProcessedHandoff: Sendable {
    /// What decides a finished image's pixels: the bytes, the decode, the transforms.
    struct Identity: Hashable, Sendable {
        var digest: UInt64
        var spec: DecodeSpec
        var transformers: [String]
        var animated: Bool
    }

    /// How long a held image waits for its next encode by default. The encode that takes it
    /// follows on the same request, after waiting its turn for a worker: long enough for a busy
    /// service's queue, and the caller drops what it will not take.
    static let defaultHoldTime: Duration = .seconds(30)
    private let holdFor: Duration

    init(holdFor: Duration = ProcessedHandoff.defaultHoldTime) {
        self.holdFor = holdFor
    }
    /// Images held at most; the oldest goes first.
    static let maxHeld = 8

    private struct Held {
        var image: Image
        var until: ContinuousClock.Instant
    }

    private let held = Mutex<[Identity: Held]>([:])

    /// The identity of `request`'s finished image made from the bytes with `digest`, or `nil`
    /// when there is no digest to know the bytes by.
    static func identity(of keys: ImageRequestKeys, digest: UInt64?) -> Identity? {
        guard let digest else { return nil }
        return Identity(
            digest: digest, spec: keys.decode.spec, transformers: keys.process.transformers,
            animated: keys.process.transformsAnimations)
    }

    /// Holds `image` for the next load of `identity`, in place of anything held under it.
    func hold(_ image: Image, for identity: Identity) {
        let now = ContinuousClock.now
        held.withLock { held in
            held = held.filter { $0.value.until > now }
            if held.count >= Self.maxHeld, let oldest = held.min(by: { $0.value.until < $1.value.until }) {
                held.removeValue(forKey: oldest.key)
            }
            held[identity] = Held(image: image, until: now.advanced(by: holdFor))
        }
    }

    /// The image held for `identity`, no longer held; `nil` when there is none or it waited too long.
    func take(_ identity: Identity) -> Image? {
        let now = ContinuousClock.now
        return held.withLock { held in
            guard let found = held.removeValue(forKey: identity), found.until > now else { return nil }
            return found.image
        }
    }

    /// Images held now, whatever their age: what tests look at.
    var count: Int { held.withLock { $0.count } }
}
