// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension Image {
    /// Loads the image resource `name` from `directory`, as YYImage's `imageNamed:`.
    ///
    /// For each scale in `preferredScales`, in order, it looks for `name@3x`, `name@2x` or `name`
    /// (scale 1) with `name`'s own extension when it has one, otherwise with each extension Imago
    /// decodes (`png` first, then the rest in `ImageFormat` order). The first file that
    /// exists is decoded, and its `scale` is set from its suffix. Nothing is cached: put results in
    /// a `MemoryCache` if you need that. For a SwiftPM bundle, pass `Bundle.module.resourceURL`.
    ///
    /// - Parameters:
    ///   - name: The resource's name without a scale suffix, with or without its extension.
    ///   - directory: The directory to look in.
    ///   - preferredScales: Default `[1, 2, 3]` (a Linux process has no screen scale; YYImage
    ///     starts from the screen's).
    ///   - options: Decode options; the scale is set here. Default ``DecodeOptions/default``.
    ///   - coders: Default ``ImageCoderRegistry/shared``.
    /// - Returns: The image, or `nil` when no candidate file exists.
    /// - Throws: the file's read errors and the decoder's `ImageCodingError`.
    public static func named(
        _ name: String, in directory: URL, preferredScales: [Int] = [1, 2, 3],
        options: DecodeOptions = .default, coders: ImageCoderRegistry = .shared
    ) throws -> Image? {
        guard let url = resourceURL(named: name, in: directory, preferredScales: preferredScales, coders: coders) else { return nil }
        var decodeOptions = options
        decodeOptions.scale = Double(PathName.displayScale(of: url.lastPathComponent))
        let data = try Data(contentsOf: url, options: .mappedIfSafe)
        return try coders.decode(data, options: decodeOptions)
    }

    /// The file ``named(_:in:preferredScales:options:coders:)`` would load, or `nil`.
    public static func resourceURL(
        named name: String, in directory: URL, preferredScales: [Int] = [1, 2, 3],
        coders: ImageCoderRegistry = .shared
    ) -> URL? {
        let (stem, givenExtension) = PathName.splitExtension(name)
        let extensions: [String]
        if !givenExtension.isEmpty, ImageFormat(fileExtension: givenExtension) != nil {
            extensions = [givenExtension]
        } else {
            let formats = coders.decodableFormats
            var list = ["png"]
            for format in formats {
                for ext in format.fileExtensions where !list.contains(ext) { list.append(ext) }
            }
            extensions = list
        }
        let base = givenExtension.isEmpty || ImageFormat(fileExtension: givenExtension) == nil ? name : stem
        // A name that already carries a scale suffix is looked up as it is.
        let explicit = PathName.displayScale(of: base + ".x") != 1 || base.hasSuffix("@1x")
        let candidates: [String] = explicit ? [base] : preferredScales.map { $0 == 1 ? base : "\(base)@\($0)x" }
        let fm = FileManager.default
        for candidate in candidates {
            for ext in extensions {
                let url = directory.appendingPathComponent(candidate).appendingPathExtension(ext)
                if fm.fileExists(atPath: url.path) { return url }
            }
        }
        return nil
    }
}
