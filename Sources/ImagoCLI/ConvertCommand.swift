import ArgumentParser
import Foundation
import Imago

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode an image and encode it again, in the format of --format or of OUT's extension.",
        discussion: """
        EXIF orientation is applied to the pixels unless --no-orientation is given (then the
        orientation is kept in the output's EXIF). Embedded ICC profiles are converted to sRGB
        unless --no-color-management is given (then the profile is kept).
        """
    )

    @Argument(help: "The input image.")
    var input: String

    @Argument(help: "The output file; written atomically.")
    var output: String

    @Option(help: "Output format: jpeg, png or webp. Default: from OUT's extension.")
    var format: String?

    @Option(help: "Lossy quality, 0-100 (JPEG, lossy WebP).")
    var quality: Int = 90

    @Flag(help: "Lossless WebP.")
    var lossless = false

    @Flag(help: "Keep the stored pixel orientation and record it in EXIF instead of turning the pixels.")
    var noOrientation = false

    @Flag(help: "Keep pixel values and the embedded ICC profile instead of converting to sRGB.")
    var noColorManagement = false

    @Option(help: "Frame of an animation to convert (0-based), composited.")
    var frame: Int?

    @Option(help: "Make a thumbnail whose longest side is at most N pixels (shrink-on-load, then Lanczos3; never upscales).")
    var thumbnail: Int?

    func validate() throws {
        guard (0...100).contains(quality) else { throw ValidationError("--quality must be between 0 and 100") }
        if let frame, frame < 0 { throw ValidationError("--frame must be 0 or more") }
        if let thumbnail, thumbnail < 1 { throw ValidationError("--thumbnail must be at least 1") }
    }

    func run() throws {
        do {
            let target = try outputFormat()
            let data = try CLIFailure.read(input)
            let decodeOptions = DecodeOptions(colorManagement: !noColorManagement)
            var image: Image
            if let thumbnail {
                image = try Thumbnailer.thumbnail(of: data, fitting: PixelSize(width: thumbnail, height: thumbnail),
                                                  options: decodeOptions)
            } else {
                image = try ImageCoders.shared.decode(data, options: decodeOptions)
            }
            if let frame {
                guard frame < image.frames.count else {
                    throw ImageCodingError.invalidArgument("--frame \(frame) is out of range: the image has \(image.frames.count) frame(s)")
                }
                let chosen = image.frames[frame]
                image = try Image(frames: [ImageFrame(buffer: chosen.buffer)], loopCount: 1, orientation: image.orientation,
                                  scale: image.scale, format: image.format, metadata: image.metadata, hasAlpha: image.hasAlpha)
            }
            let options = EncodeOptions(quality: Double(quality) / 100, lossless: lossless,
                                        orientation: noOrientation ? .writeEXIF : .bake)
            let encoded = try ImageCoders.shared.encode(image, as: target, options: options)
            try encoded.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CLIFailure.exit(error, file: input)
        }
    }

    private func outputFormat() throws -> ImageFormat {
        if let format {
            guard let f = ImageFormat(rawValue: format.lowercased()) ?? ImageFormat(fileExtension: format) else {
                throw ImageCodingError.invalidArgument("unknown output format '\(format)'")
            }
            return f
        }
        let ext = URL(fileURLWithPath: output).pathExtension
        guard !ext.isEmpty, let f = ImageFormat(fileExtension: ext) else {
            throw ImageCodingError.invalidArgument("cannot tell the output format from '\(output)'; pass --format")
        }
        return f
    }
}
